/**
 * `@dsh/kernel/internals`: what dsh's own core packages reach of cordis's internals (see
 * cordis-internals.ts). Not part of the public API: neither `dsh` nor the bundled plugins use it.
 */
export * from './cordis-internals.js'
