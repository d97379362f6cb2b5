/**
 * The configuration of the otel plugin (DESIGN §15.4), checked when the plugin
 * loads. Arguments and results can hold secrets: neither is recorded unless
 * asked for, and then cut to `maxAttributeBytes`.
 */
import Schema from 'schemastery'

export interface Config {
  /** the name the plugin's tracer is asked for (instrumentation scope); default `@dsh/otel` */
  tracerName: string
  /** record each call's arguments as `gen_ai.tool.call.arguments` (JSON) */
  recordArguments: boolean
  /** record each call's result as `gen_ai.tool.call.result`, and an error's message as the span status */
  recordResults: boolean
  /** the most UTF-8 bytes of a recorded argument, result or message; longer ones are cut */
  maxAttributeBytes: number
}

export const DEFAULT_TRACER_NAME = '@dsh/otel'

export const Config: Schema<Config> = Schema.object({
  tracerName: Schema.string().min(1).default(DEFAULT_TRACER_NAME)
    .description('Name of the tracer (the instrumentation scope the spans carry).'),
  recordArguments: Schema.boolean().default(false)
    .description('Record the arguments of each call (gen_ai.tool.call.arguments). Off by default: arguments can hold secrets.'),
  recordResults: Schema.boolean().default(false)
    .description('Record the result of each call (gen_ai.tool.call.result) and the message of an error as the span status. Off by default: results can hold secrets.'),
  maxAttributeBytes: Schema.natural().min(1).default(1024)
    .description('Most UTF-8 bytes of a recorded argument, result or message; a longer one is cut and named in dsh.truncated.'),
})
