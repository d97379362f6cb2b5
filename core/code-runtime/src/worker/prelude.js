// @ts-check
/**
 * Source evaluated in every fresh QuickJS context before the program. It
 * installs the only two things the program gets beyond standard ECMAScript —
 * `tools` and `console` — and hands the worker private helpers that captured
 * the intrinsics they need before the program could replace them.
 *
 * Called with (hostCall, hostLog, names, maxValueChars, maxLogChars); returns
 * `{ encode, describe, parse }`.
 */
export const preludeSource = String.raw`(function (hostCall, hostLog, names, maxValueChars, maxLogChars) {
  'use strict';
  const stringify = JSON.stringify, parse = JSON.parse;
  const create = Object.create, defineProperty = Object.defineProperty, freeze = Object.freeze;
  const ErrorCtor = Error, TypeErrorCtor = TypeError, StringCtor = String;

  const coded = (code, message) => {
    const error = new ErrorCtor(message);
    defineProperty(error, 'code', { value: code, writable: true, configurable: true });
    return error;
  };

  // a null-prototype object: tools.toString, tools.__proto__ and friends are undefined
  const tools = create(null);
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    const call = async function (args) {
      const json = stringify(args === undefined ? {} : args);
      if (typeof json !== 'string') throw new TypeErrorCtor('tools.' + name + ': the arguments are not JSON');
      // length in UTF-16 units never exceeds the UTF-8 byte count: over it is surely too big
      if (json.length > maxValueChars) {
        throw coded('LIMIT', 'tools.' + name + ': the arguments are over the limit of ' + maxValueChars + ' bytes');
      }
      return hostCall(i, json);
    };
    defineProperty(call, 'name', { value: name });
    defineProperty(tools, name, { value: call, enumerable: true });
  }
  freeze(tools);
  defineProperty(globalThis, 'tools', { value: tools, enumerable: false });

  const show = (value) => {
    try {
      if (typeof value === 'string') return value;
      if (value instanceof ErrorCtor) return StringCtor(value.name) + ': ' + StringCtor(value.message);
      if (typeof value === 'function') return '[Function ' + (value.name || '(anonymous)') + ']';
      if (value === undefined || typeof value === 'symbol' || typeof value === 'bigint') return StringCtor(value);
      const json = stringify(value);
      return json === undefined ? StringCtor(value) : json;
    } catch {
      return '[unprintable]';
    }
  };
  let full = false;
  const log = (...values) => {
    if (full) return;
    let line = '';
    for (let i = 0; i < values.length && line.length <= maxLogChars; i++) line += (i ? ' ' : '') + show(values[i]);
    // never hand the host more than the log can still take
    full = hostLog(line.length > maxLogChars ? line.slice(0, maxLogChars) : line);
  };
  defineProperty(globalThis, 'console', {
    value: freeze({ log, info: log, warn: log, error: log, debug: log }),
    writable: true,
    configurable: true,
  });

  const encode = (value) => {
    if (value === undefined) return 'null';
    const json = stringify(value);
    if (json === undefined) throw new TypeErrorCtor('the program returned a ' + typeof value + ', which JSON cannot represent');
    return json;
  };

  const text = (value, limit) => {
    const s = typeof value === 'string' ? value : StringCtor(value);
    return s.length > limit ? s.slice(0, limit) + '…' : s;
  };
  const describe = (thrown) => {
    try {
      if (thrown instanceof ErrorCtor) {
        const code = thrown.code;
        return stringify({
          name: text(thrown.name, 200),
          message: text(thrown.message, 4000),
          code: typeof code === 'string' ? text(code, 200) : undefined,
          stack: typeof thrown.stack === 'string' ? text(thrown.stack, 4000) : undefined,
        });
      }
      const json = typeof thrown === 'object' && thrown !== null ? stringify(thrown) : undefined;
      return stringify({ message: text(json === undefined ? StringCtor(thrown) : json, 4000) });
    } catch {
      return stringify({ message: 'the program threw a value that cannot be printed' });
    }
  };

  return freeze({ encode, describe, parse });
})`
