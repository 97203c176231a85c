/**
 * `indexableWords` (domain/message-search.ts): its regex-free ASCII path finds the same words as
 * the Unicode tokenizer (`[\p{L}\p{N}]+` on the lower-cased text, stop words dropped).
 */
import t from 'tap';
import { indexableWords, STOP_WORDS } from '../../src/domain/message-search.js';
import { prng } from '../../bench/prng.js';

/** The reference tokenizer: the Unicode regex over the whole text. */
function reference(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) if (!STOP_WORDS.has(m[0])) out.add(m[0]);
  return [...out];
}

t.test('ASCII texts: same words as the Unicode tokenizer', async (t) => {
  const random = prng(417);
  const alphabet = 'abcXYZ019 _-.,:@#*\n\t\'"/the is A';
  let mismatches = 0;
  for (let n = 0; n < 3000; n++) {
    let text = '';
    const length = Math.floor(random() * 40);
    for (let i = 0; i < length; i++) text += alphabet[Math.floor(random() * alphabet.length)];
    if (JSON.stringify([...indexableWords(text)].sort()) !== JSON.stringify(reference(text).sort())) mismatches++;
  }
  t.equal(mismatches, 0, 'no text of 3,000 differs');
  t.same([...indexableWords('Bench message 123, THE end_of-line')], ['bench', 'message', '123', 'end', 'line'], 'stop words (the, of) dropped');
});

t.test('non-ASCII texts keep the Unicode tokenizer', async (t) => {
  t.same([...indexableWords('Grüße aus Köln 2024')], ['grüße', 'aus', 'köln', '2024']);
  t.same([...indexableWords('日本語 テキスト')], ['日本語', 'テキスト']);
  t.same([...indexableWords('\u212Aelvin')], ['kelvin'], 'the Kelvin sign lower-cases to ASCII k');
});
