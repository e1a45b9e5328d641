import { keyVocabulary, resolveKey } from "@pincer/shared";

const NAME_OF_KEYSYM = new Map<number, string>();
// The vocabulary's names that are not single characters (those go by their code point below).
for (const name of keyVocabulary().keysyms.filter((n) => [...n].length > 1)) {
  const spec = resolveKey(name);
  if (spec && !NAME_OF_KEYSYM.has(spec.keysym)) NAME_OF_KEYSYM.set(spec.keysym, spec.name);
}

/**
 * The key name `env.keyboard` takes for an X keysym from an RFB KeyEvent, or undefined for a keysym
 * Pincer has no key for (dead keys, most vendor keys). Latin-1 keysyms and Unicode keysyms
 * (0x01000000 + code point) become their character; the rest go by their keysym name.
 */
export function keyNameOfKeysym(keysym: number): string | undefined {
  if ((keysym >= 0x20 && keysym <= 0x7e) || (keysym >= 0xa0 && keysym <= 0xff)) return String.fromCharCode(keysym);
  if (keysym >= 0x01000100 && keysym <= 0x0110ffff) {
    const cp = keysym - 0x01000000;
    // Surrogate halves are no characters.
    return cp >= 0xd800 && cp <= 0xdfff ? undefined : String.fromCodePoint(cp);
  }
  return NAME_OF_KEYSYM.get(keysym);
}
