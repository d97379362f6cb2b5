/** The longest delay `setTimeout` honours, in ms (a longer one fires at once). */
export const MAX_TIMER_MS = 2 ** 31 - 1
