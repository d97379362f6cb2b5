/**
 * Quoting what a caller sent inside an error message: a model or a client
 * can send a 9 MB name or path, and an error that echoes it whole is a 9 MB
 * answer (twice, when the message is also the result's text). Each quote is
 * cut to a few lines' worth, saying how long the original was.
 */

/** How many characters of a value an error message quotes. */
export const QUOTE_LIMIT = 120

/** `JSON.stringify(text)`, cut to `limit` characters of `text`, with its length said when cut. */
export function quoteInput(text: string, limit = QUOTE_LIMIT): string {
  if (text.length <= limit) return JSON.stringify(text)
  return `${JSON.stringify(text.slice(0, limit))}… (${text.length} characters)`
}

/** `text` itself, cut like `quoteInput` but not quoted (for a path already shown bare). */
export function clipInput(text: string, limit = QUOTE_LIMIT): string {
  if (text.length <= limit) return text
  return `${text.slice(0, limit)}… (${text.length} characters)`
}

/** The most characters of an error result's text: a backstop for messages that quote without `quoteInput`. */
export const ERROR_TEXT_LIMIT = 16 * 1024

/** `message` cut to `ERROR_TEXT_LIMIT` characters, saying how much was left out. */
export function capErrorText(message: string): string {
  if (message.length <= ERROR_TEXT_LIMIT) return message
  return `${message.slice(0, ERROR_TEXT_LIMIT)}… (${message.length - ERROR_TEXT_LIMIT} more characters left out)`
}
