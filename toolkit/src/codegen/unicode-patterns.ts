/**
 * A `pattern` of JSON Schema is an ECMA-262 regular expression (2020-12 §6.3.3). Ajv, the
 * validator's JSON Schema library, compiles each with the `u` flag, under which ECMA-262 rejects
 * forms that its Annex B reads without the flag: an escaped character that needs no escape (`\-`,
 * `\_`, `\@`), a `{`, `}` or `]` that is no quantifier or class, a `-` beside a class escape in a
 * class (`[\w-.]`). Each of these means its character as it is; written so, the pattern compiles
 * with the flag and matches what it matched without it.
 */

/** Characters with a meaning in a pattern, which an escape keeps as themselves under the `u` flag. */
const SYNTAX = new Set(['^', '$', '\\', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '/']);
/** Letters and digits an escape gives a meaning (a class, a control, a code point, a back reference). */
const MEANINGFUL = /^[bBdDwWsSfnrtvcxukpP0-9]$/;
/** The escapes that stand for a class of characters. */
const CLASS_ESCAPE = /^[dDwWsS]$/;
/** A quantifier written with braces, from where it starts. */
const BRACE_QUANTIFIER = /^\{\d+(?:,\d*)?\}/;

const compiles = (source: string, flags: string): boolean => {
  try {
    new RegExp(source, flags);
    return true;
  } catch {
    return false;
  }
};

/** Each character that Annex B reads as itself, written as the `u` flag reads it so. */
function rewrite(pattern: string): string {
  const chars = [...pattern];
  let out = '';
  let inClass = false;
  // In a class: whether the last atom was a class escape (`\d`), and whether no atom came yet.
  let lastClassEscape = false;
  let classStart = false;
  for (let i = 0; i < chars.length; i += 1) {
    const char = chars[i] ?? '';
    if (char === '\\') {
      const next = chars[i + 1];
      i += 1;
      if (next === undefined) out += char;
      else if (SYNTAX.has(next) || MEANINGFUL.test(next) || (inClass && next === '-')) out += `${char}${next}`;
      // An identity escape of a character without a meaning: the character itself.
      else out += next;
      lastClassEscape = next !== undefined && CLASS_ESCAPE.test(next);
      classStart = false;
      continue;
    }
    if (inClass) {
      // ECMA-262 ends a class at its first unescaped `]` (`[]` is the empty class).
      if (char === ']') {
        inClass = false;
        out += char;
        continue;
      }
      const nextIsClassEscape = chars[i + 1] === '\\' && CLASS_ESCAPE.test(chars[i + 2] ?? '');
      if (char === '-' && !classStart && chars[i + 1] !== ']' && (lastClassEscape || nextIsClassEscape)) out += '\\-';
      else out += char;
      lastClassEscape = false;
      classStart = false;
      continue;
    }
    if (char === '[') {
      inClass = true;
      classStart = true;
      lastClassEscape = false;
      out += char;
      if (chars[i + 1] === '^') {
        out += '^';
        i += 1;
      }
      continue;
    }
    if (char === '{') {
      const quantifier = BRACE_QUANTIFIER.exec(chars.slice(i).join(''));
      if (quantifier === null) out += '\\{';
      else {
        out += quantifier[0];
        i += [...quantifier[0]].length - 1;
      }
      continue;
    }
    out += char === '}' || char === ']' ? `\\${char}` : char;
  }
  return out;
}

/**
 * `pattern` as a regular expression that compiles with the `u` flag and matches what `pattern`
 * matches: `pattern` itself when it compiles so, or it rewritten; undefined when it compiles
 * neither way or the rewriting does not compile either.
 */
export function unicodePattern(pattern: string): string | undefined {
  if (compiles(pattern, 'u')) return pattern;
  if (!compiles(pattern, '')) return undefined;
  const rewritten = rewrite(pattern);
  return compiles(rewritten, 'u') ? rewritten : undefined;
}
