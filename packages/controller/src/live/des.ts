/**
 * DES (FIPS 46-3) encryption in ECB mode, for VNC authentication only: the RFB protocol's
 * challenge-response is DES, and the OpenSSL 3 that Node ships usually has DES only in its legacy
 * provider, which is not loaded. Speed does not matter here (two blocks per login), so the cipher is
 * written plainly over arrays of bits, one table of the standard per step.
 */

/** Initial permutation: row r starts at 58, 60, 62, 64, 57, 59, 61, 63 and counts down by 8. */
const IP = [58, 60, 62, 64, 57, 59, 61, 63].flatMap((start) => Array.from({ length: 8 }, (_, c) => start - 8 * c));

/** Final permutation: the inverse of {@link IP}. */
const FP = IP.map((_, i) => IP.indexOf(i + 1) + 1);

/** Expansion of a 32-bit half to 48 bits: each 4-bit group with its neighbours' edge bits. */
const E = Array.from({ length: 48 }, (_, i) => ((Math.floor(i / 6) * 4 + (i % 6) - 1 + 32) % 32) + 1);

/** Permutation of the S-boxes' output. */
const P = [16, 7, 20, 21, 29, 12, 28, 17, 1, 15, 23, 26, 5, 18, 31, 10, 2, 8, 24, 14, 32, 27, 3, 9, 19, 13, 30, 6, 22, 11, 4, 25];

/** Permuted choice 1: the 56 key bits that count (every eighth bit is parity). */
const PC1 = [
  57, 49, 41, 33, 25, 17, 9, 1, 58, 50, 42, 34, 26, 18, 10, 2, 59, 51, 43, 35, 27, 19, 11, 3, 60, 52, 44, 36, 63, 55, 47, 39, 31, 23, 15, 7, 62, 54, 46, 38, 30,
  22, 14, 6, 61, 53, 45, 37, 29, 21, 13, 5, 28, 20, 12, 4,
];

/** Permuted choice 2: the 48 bits of a round key. */
const PC2 = [
  14, 17, 11, 24, 1, 5, 3, 28, 15, 6, 21, 10, 23, 19, 12, 4, 26, 8, 16, 7, 27, 20, 13, 2, 41, 52, 31, 37, 47, 55, 30, 40, 51, 45, 33, 48, 44, 49, 39, 56, 34,
  53, 46, 42, 50, 36, 29, 32,
];

/** Left rotations of the key halves before each of the 16 rounds. */
const SHIFTS = [1, 1, 2, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2, 2, 2, 1];

/** The eight S-boxes, each four rows of 16 values written as hex digits. */
const S_BOXES = [
  "e4d12fb83a6c5907" + "0f74e2d1a6cb9538" + "41e8d62bfc973a50" + "fc8249175b3ea06d",
  "f18e6b34972dc05a" + "3d47f28ec01a69b5" + "0e7ba4d158c6932f" + "d8a13f42b67c05e9",
  "a09e63f51dc7b428" + "d709346a285ecbf1" + "d6498f30b12c5ae7" + "1ad069874fe3b52c",
  "7de3069a1285bc4f" + "d8b56f03472c1ae9" + "a690cb7df13e5284" + "3f06a1d8945bc72e",
  "2c417ab6853fd0e9" + "eb2c47d150fa3986" + "421bad78f9c5630e" + "b8c71e2d6f09a453",
  "c1af92680d34e75b" + "af427c9561de0b38" + "9ef528c3704a1db6" + "432c95fabe17608d",
  "4b2ef08d3c975a61" + "d0b7491ae35c2f86" + "14bdc37eaf680592" + "6bd814a7950fe23c",
  "d2846fb1a93e50c7" + "1fd8a374c56b0e92" + "7b419ce206adf358" + "21e74a8dfc90356b",
].map((box) => [...box].map((d) => Number.parseInt(d, 16)));

type Bits = number[];

const permute = (input: Bits, table: readonly number[]): Bits => table.map((i) => input[i - 1]!);

function toBits(bytes: Uint8Array): Bits {
  return [...bytes].flatMap((b) => Array.from({ length: 8 }, (_, i) => (b >> (7 - i)) & 1));
}

function toBytes(bits: Bits): Buffer {
  const out = Buffer.alloc(bits.length / 8);
  bits.forEach((bit, i) => {
    out[i >> 3]! |= bit << (7 - (i & 7));
  });
  return out;
}

/** The 16 round keys of an 8-byte key. */
function roundKeys(key: Uint8Array): Bits[] {
  const bits = permute(toBits(key), PC1);
  let c = bits.slice(0, 28);
  let d = bits.slice(28);
  return SHIFTS.map((n) => {
    c = [...c.slice(n), ...c.slice(0, n)];
    d = [...d.slice(n), ...d.slice(0, n)];
    return permute([...c, ...d], PC2);
  });
}

/** The cipher function f(R, K) of one round. */
function feistel(right: Bits, key: Bits): Bits {
  const x = permute(right, E).map((bit, i) => bit ^ key[i]!);
  const out: Bits = [];
  for (let box = 0; box < 8; box++) {
    const six = x.slice(box * 6, box * 6 + 6);
    const row = (six[0]! << 1) | six[5]!;
    const col = (six[1]! << 3) | (six[2]! << 2) | (six[3]! << 1) | six[4]!;
    const v = S_BOXES[box]![row * 16 + col]!;
    out.push((v >> 3) & 1, (v >> 2) & 1, (v >> 1) & 1, v & 1);
  }
  return permute(out, P);
}

function encryptBlock(keys: Bits[], block: Uint8Array): Buffer {
  const bits = permute(toBits(block), IP);
  let left = bits.slice(0, 32);
  let right = bits.slice(32);
  for (const k of keys) {
    const f = feistel(right, k);
    [left, right] = [right, left.map((bit, i) => bit ^ f[i]!)];
  }
  return toBytes(permute([...right, ...left], FP));
}

/**
 * Encrypts `data` (a whole number of 8-byte blocks) with DES in ECB mode under an 8-byte `key`
 * (parity bits ignored), as standard DES does: key 133457799BBCDFF1 turns block 0123456789ABCDEF
 * into 85E813540F0AB405.
 */
export function desEcbEncrypt(key: Uint8Array, data: Uint8Array): Buffer {
  if (key.length !== 8) throw new RangeError(`a DES key is 8 bytes, not ${key.length}`);
  if (data.length % 8 !== 0) throw new RangeError(`DES-ECB encrypts whole 8-byte blocks; ${data.length} bytes is not a multiple of 8`);
  const keys = roundKeys(key);
  const blocks: Buffer[] = [];
  for (let i = 0; i < data.length; i += 8) blocks.push(encryptBlock(keys, data.subarray(i, i + 8)));
  return Buffer.concat(blocks);
}

/** `b` with its eight bits in reverse order. */
function reverseBits(b: number): number {
  let r = 0;
  for (let i = 0; i < 8; i++) r |= ((b >> i) & 1) << (7 - i);
  return r;
}

/**
 * The response a VNC viewer gives to a 16-byte VNC-authentication challenge: the challenge
 * DES-encrypted under the password's first 8 bytes (UTF-8, zero-padded), with the bits of each key
 * byte reversed, as every RFB implementation does.
 */
export function vncAuthResponse(challenge: Uint8Array, password: string): Buffer {
  const key = Buffer.alloc(8);
  Buffer.from(password, "utf8").copy(key, 0, 0, 8);
  return desEcbEncrypt(key.map(reverseBits), challenge);
}
