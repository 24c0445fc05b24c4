/**
 * BERT's uncased WordPiece tokenizer, as described by a Hugging Face tokenizer.json
 * (BertNormalizer lowercase, BertPreTokenizer, WordPiece with `##` continuations).
 */
export interface WordPiece {
  /** Token ids with [CLS] … [SEP], truncated to `maxLength`. */
  encode(text: string): number[];
}

interface TokenizerJson {
  model: { vocab: Record<string, number>; unk_token: string; continuing_subword_prefix: string; max_input_chars_per_word: number };
}

function isPunctuation(char: string): boolean {
  const code = char.codePointAt(0)!;
  if ((code >= 33 && code <= 47) || (code >= 58 && code <= 64) || (code >= 91 && code <= 96) || (code >= 123 && code <= 126)) return true;
  return /\p{P}/u.test(char);
}

/** Lowercase, drop accents and control characters, and split on whitespace and punctuation. */
function basicTokens(text: string): string[] {
  const cleaned = text
    .toLowerCase()
    .normalize('NFD')
    .replace(/\p{Mn}/gu, '')
    .replace(/[\u0000\ufffd\p{Cc}]/gu, (char) => (/\s/.test(char) ? ' ' : ''));
  const tokens: string[] = [];
  for (const word of cleaned.split(/\s+/)) {
    let current = '';
    for (const char of word) {
      if (isPunctuation(char) || /\p{Script=Han}/u.test(char)) {
        if (current) tokens.push(current);
        tokens.push(char);
        current = '';
      } else {
        current += char;
      }
    }
    if (current) tokens.push(current);
  }
  return tokens;
}

export function createWordPiece(tokenizer: TokenizerJson, maxLength: number): WordPiece {
  const { vocab, unk_token: unk, continuing_subword_prefix: prefix, max_input_chars_per_word: maxChars } = tokenizer.model;
  const id = (token: string) => vocab[token];
  const [cls, sep, unkId] = [id('[CLS]'), id('[SEP]'), id(unk)];

  function pieces(word: string): number[] {
    const chars = [...word];
    if (chars.length > maxChars) return [unkId];
    const out: number[] = [];
    let start = 0;
    while (start < chars.length) {
      let end = chars.length;
      let found: number | undefined;
      while (start < end) {
        const piece = (start > 0 ? prefix : '') + chars.slice(start, end).join('');
        if (piece in vocab) {
          found = vocab[piece];
          break;
        }
        end--;
      }
      if (found === undefined) return [unkId];
      out.push(found);
      start = end;
    }
    return out;
  }

  return {
    encode(text) {
      const ids = basicTokens(text).flatMap(pieces).slice(0, maxLength - 2);
      return [cls, ...ids, sep];
    },
  };
}
