// @joplin/turndown-plugin-gfm ships no types: the one export web_fetch's converter uses
declare module '@joplin/turndown-plugin-gfm' {
  import type TurndownService from 'turndown'
  const plugin: { gfm: TurndownService.Plugin }
  export default plugin
}
