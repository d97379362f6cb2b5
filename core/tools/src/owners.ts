/**
 * Registrations tied to the scope of the plugin that made them, with one
 * cordis effect per scope rather than one per registration. A plugin that
 * registers thousands of tools pays for one effect (cordis names, tracks and
 * on removal searches an array for every effect); each registration keeps only
 * its own disposer. Disposing the scope runs what is left, in order.
 */
import type { Context } from 'cordis'

type Scope = Context['scope']

export class ScopedRegistrations {
  private byScope = new WeakMap<Scope, Set<() => void>>()

  /**
   * The live disposers of `owner`'s scope: add a registration's disposer to it,
   * and have the disposer delete itself from it first (so it runs at most
   * once). Throws (cordis's `INACTIVE_EFFECT`) when the scope is no longer
   * active, before anything is kept.
   */
  of(owner: Context): Set<() => void> {
    const scope = owner.scope
    let live = this.byScope.get(scope)
    if (live) return live
    const created = new Set<() => void>()
    // the set exists only while the scope is active: its effect deletes it on dispose
    scope.effect(() => () => {
      this.byScope.delete(scope)
      for (const dispose of [...created]) {
        try {
          dispose()
        } catch {
          // one failing removal does not keep the others registered
        }
      }
    })
    this.byScope.set(scope, created)
    return created
  }
}
