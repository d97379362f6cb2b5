import { defineConfig } from 'vitest/config'

export default defineConfig({
  // run the TypeScript sources of the workspace packages, not their build (tests run in
  // vite's SSR environment, whose resolve conditions are separate from the client's)
  resolve: { conditions: ['dsh-source'] },
  ssr: { resolve: { conditions: ['dsh-source'], externalConditions: ['dsh-source'] } },
  test: {
    include: ['test/**/*.spec.ts', 'docs/examples/**/*.spec.ts'],
    // type tests (`*.test-d.ts`): checked by tsc against tsconfig.test.json, run with every `vitest run`
    typecheck: { enabled: true, include: ['test/types/**/*.test-d.ts'], tsconfig: './tsconfig.test.json' },
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
  },
})
