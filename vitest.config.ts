import { defineConfig } from 'vitest/config'

export default defineConfig({
  resolve: {
    // run the TypeScript sources of the workspace packages, not their build
    conditions: ['dsh-source'],
  },
  test: {
    include: ['test/**/*.spec.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
  },
})
