import { defineConfig } from 'vitest/config'

export default defineConfig({
  // run the TypeScript sources of the workspace packages, not their build (tests run in
  // vite's SSR environment, whose resolve conditions are separate from the client's)
  resolve: { conditions: ['dsh-source'] },
  ssr: { resolve: { conditions: ['dsh-source'], externalConditions: ['dsh-source'] } },
  test: {
    include: ['test/**/*.spec.ts', 'docs/examples/**/*.spec.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
  },
})
