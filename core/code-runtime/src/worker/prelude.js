// @ts-check
/**
 * The JavaScript the worker puts in every isolate. QuickJS compiles about
 * 3 KB per millisecond here, once per run, so it is kept small and split in
 * two: the prelude proper, evaluated before any program, and the reporting
 * helpers, compiled only in a run that logs or throws.
 *
 * The prelude captures the intrinsics it needs while they are still pristine
 * and returns `setup(hostLog)`, called while the isolate is made ahead of its
 * run. That installs `console` and returns
 *   `[install, take, settle, encode, intrinsics]`:
 * - `install(namesJson, maxValueChars)`: installs `tools` for the run — with
 *   `console`, the only things a program gets beyond standard ECMAScript;
 * - `take()`: the sub-calls requested since the last take, as text records
 *   `<id>,<tool index>,<length>:<arguments JSON>` (no host call per sub-call:
 *   crossing the FFI is what costs, so the worker drains them once per pump);
 * - `settle(json)`: `[[id, 1, value] | [id, 0, code, message] | [id, 2, message], …]`
 *   (2: a limit of the runtime), parsed here, inside the isolate, so every
 *   result is a fresh object and `__proto__` keys stay plain data;
 * - `encode(value)`: the return value as JSON text;
 * - `intrinsics`: what the reporting helpers are given when compiled.
 */
export const preludeSource = String.raw`(function () {
  'use strict';
  const stringify = JSON.stringify, parse = JSON.parse;
  const create = Object.create, defineProperty = Object.defineProperty, freeze = Object.freeze;
  const PromiseCtor = Promise, ErrorCtor = Error, TypeErrorCtor = TypeError;
  const uncurry = Function.prototype.call.bind(Function.prototype.bind, Function.prototype.call);
  const limits = new WeakSet(), markLimit = uncurry(WeakSet.prototype.add), hasLimit = uncurry(WeakSet.prototype.has);
  const intrinsics = freeze([stringify, String, ErrorCtor, (error) => hasLimit(limits, error)]);

  const coded = (code, message) => {
    const error = new ErrorCtor(message);
    defineProperty(error, 'code', { value: code, writable: true, configurable: true });
    return error;
  };
  const limitError = (message) => {
    const error = coded('LIMIT', message);
    markLimit(limits, error);
    return error;
  };

  return function setup(hostLog) {
    // null prototypes: no lookup here can reach a setter the program planted on Object.prototype
    const waiting = create(null);
    let nextId = 0, outbox = '', maxValueChars = 0, full = false;

    const log = (...values) => {
      if (!full) full = hostLog(values);
    };
    defineProperty(globalThis, 'console', {
      value: freeze({ log, info: log, warn: log, error: log, debug: log }),
      writable: true,
      configurable: true,
    });

    const install = (namesJson, maxValue) => {
      maxValueChars = maxValue;
      const names = parse(namesJson);
      const tools = create(null);
      for (let i = 0; i < names.length; i++) {
        const name = names[i];
        const call = function (args) {
          return new PromiseCtor((resolve, reject) => {
            const json = stringify(args === undefined ? {} : args);
            if (typeof json !== 'string') throw new TypeErrorCtor('tools.' + name + ': the arguments are not JSON');
            // UTF-16 length never exceeds the UTF-8 byte count: over it is surely too big
            if (json.length > maxValueChars) {
              throw limitError('tools.' + name + ': the arguments are over the limit of ' + maxValueChars + ' bytes');
            }
            const id = ++nextId;
            waiting[id] = { resolve, reject };
            outbox += id + ',' + i + ',' + json.length + ':' + json;
          });
        };
        defineProperty(call, 'name', { value: name });
        defineProperty(tools, name, { value: call, enumerable: true });
      }
      defineProperty(globalThis, 'tools', { value: freeze(tools) });
    };
    const take = () => {
      const requests = outbox;
      outbox = '';
      return requests;
    };
    const settle = (json) => {
      const entries = parse(json);
      for (let k = 0; k < entries.length; k++) {
        const entry = entries[k], waiter = waiting[entry[0]];
        if (waiter === undefined) continue;
        delete waiting[entry[0]];
        if (entry[1] === 1) waiter.resolve(entry[2]);
        else if (entry[1] === 2) waiter.reject(limitError(entry[2]));
        else waiter.reject(coded(entry[2], entry[3]));
      }
    };
    const encode = (value) => {
      if (value === undefined) return 'null';
      const json = stringify(value);
      if (json === undefined) throw new TypeErrorCtor('the program returned a ' + typeof value + ', which JSON cannot represent');
      return json;
    };
    return [install, take, settle, encode, intrinsics];
  };
})()`

/**
 * The reporting helpers, compiled on first use: after the program ran, so they
 * touch no global, only the intrinsics the prelude captured. Returns
 * `[format, describe]`:
 * - `format(values, maxChars)`: one console line, values as JSON where they
 *   can be, cut at `maxChars` (never hand the host more than the log can take);
 * - `describe(thrown)`: what a thrown value says about itself, as JSON text,
 *   and whether it is the runtime's own `LIMIT` error (a mark the program
 *   cannot forge: membership of a WeakSet only the prelude holds).
 */
export const reportingSource = String.raw`(function (stringify, StringCtor, ErrorCtor, isLimit) {
  'use strict';
  const text = (value, limit) => {
    const s = typeof value === 'string' ? value : StringCtor(value);
    return s.length > limit ? s.slice(0, limit) + '…' : s;
  };
  const show = (value) => {
    try {
      if (typeof value === 'string') return value;
      if (value instanceof ErrorCtor) return StringCtor(value.name) + ': ' + StringCtor(value.message);
      if (typeof value === 'function') return '[Function ' + (value.name || '(anonymous)') + ']';
      if (value === undefined || typeof value === 'symbol' || typeof value === 'bigint') return StringCtor(value);
      let json;
      try {
        json = stringify(value);
      } catch {
        // a cycle, say: fall back to the value's string form
      }
      return json === undefined ? StringCtor(value) : json;
    } catch {
      return '[unprintable]';
    }
  };
  const format = (values, maxChars) => {
    let line = '';
    for (let i = 0; i < values.length && line.length <= maxChars; i++) line += (i ? ' ' : '') + show(values[i]);
    return line.length > maxChars ? line.slice(0, maxChars) : line;
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
          limit: isLimit(thrown),
        });
      }
      const json = typeof thrown === 'object' && thrown !== null ? stringify(thrown) : undefined;
      return stringify({ message: text(json === undefined ? StringCtor(thrown) : json, 4000) });
    } catch {
      return stringify({ message: 'the program threw a value that cannot be printed' });
    }
  };
  return [format, describe];
})`
