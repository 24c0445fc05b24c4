import type * as Yaml from 'yaml';

/**
 * Characters a YAML 1.1 reader (PyYAML, LibYAML, so Ultralytics and huggingface_hub) takes as line
 * breaks or refuses raw (NEL, LS, PS, C0/C1 controls, DEL, BOM, U+FFFE/U+FFFF): the `yaml` package
 * writes YAML 1.2, where they are plain text, and leaves them raw even in double quotes. (JSON.stringify
 * escapes lone surrogates itself; a pair stays raw, as PyYAML would split an escaped pair.)
 */
const NOT_RAW = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/gu;

/** Keys written plain: our own lower-case names that no YAML 1.1 reader resolves to a boolean or null. */
const PLAIN_KEY = /^[a-z][a-z_]*$/;
const YAML11_WORDS = new Set(['y', 'n', 'yes', 'no', 'on', 'off', 'true', 'false', 'null']);

/** A string as a double-quoted scalar on one line with every character above escaped (`\uXXXX`, valid in YAML 1.1 and 1.2). */
function doubleQuoted(value: string): string {
  const escape = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
  return JSON.stringify(value).replace(NOT_RAW, escape);
}

const quotedString: Yaml.ScalarTag = {
  identify: (value) => typeof value === 'string',
  default: true,
  tag: 'tag:yaml.org,2002:str',
  resolve: (text) => text,
  stringify: (item, ctx) => {
    const value = String(item.value);
    return ctx.implicitKey && PLAIN_KEY.test(value) && !YAML11_WORDS.has(value) ? value : doubleQuoted(value);
  },
};

/**
 * A YAML document of `value` that YAML 1.1 and 1.2 readers read back as `value`: block mappings and
 * sequences from the `yaml` package, every string double-quoted and escaped so no user text can end a
 * line, open a comment or a document, or change a type. Keys must be strings (or numbers) of ours.
 */
export function toYaml(value: unknown): string {
  // Required at the first YAML export file, not when a process starts.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { stringify } = require('yaml') as typeof Yaml;
  return stringify(value, {
    customTags: (tags) => [quotedString, ...tags.filter((tag) => (tag as Yaml.ScalarTag).tag !== 'tag:yaml.org,2002:str')],
    lineWidth: 0,
  });
}
