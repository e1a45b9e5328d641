import { dct2 } from "./dct.js";

/**
 * librosa 0.11's `feature.mfcc(y=y, sr=22050)` with its defaults, in float32 where librosa is: a
 * centred STFT (n_fft 2048, hop 512, periodic Hann window, zero padding) whose frames are windowed
 * and transformed in float64 and stored as complex64, `|X|**2` in float32, 128 Slaney mel filters
 * (float32) applied to it, `power_to_db` (amin 1e-10, ref 1, top_db 80) in float32, and an
 * orthonormal DCT-II keeping 20 coefficients. librosa's float32 sums (the mel projection by BLAS, the
 * DCT by pocketfft) are done here in float64 and rounded once, so values can differ from librosa's
 * in their last bits; see docs/osworld.md for how close the scores come.
 */

const N_FFT = 2048;
const HOP = 512;
const N_MELS = 128;
const N_MFCC = 20;

/** MFCCs: `coefficients[k][t]`, 20 rows of one value a frame (float32 values). */
export interface Mfcc {
  coefficients: Float32Array[];
  frames: number;
}

/** `librosa.feature.mfcc(y=y, sr=sr)` of float32 mono samples. */
export function librosaMfcc(y: Float32Array, sr: number): Mfcc {
  const power = powerSpectrogram(y);
  const frames = power.length;
  const basis = melBasis(sr);
  const db: Float32Array[] = [];
  let top = Number.NEGATIVE_INFINITY;
  const amin = Math.fround(1e-10);
  for (const spectrum of power) {
    const col = new Float32Array(N_MELS);
    for (let m = 0; m < N_MELS; m++) {
      const { start, weights } = basis[m]!;
      let s = 0;
      for (let k = 0; k < weights.length; k++) s += weights[k]! * spectrum[start + k]!;
      // 10 * log10(max(amin, S)) in float32
      col[m] = Math.fround(10 * Math.fround(Math.log10(Math.max(amin, Math.fround(s)))));
      if (col[m]! > top) top = col[m]!;
    }
    db.push(col);
  }
  // log_spec.max() - top_db is a float64 (a float32 scalar minus a Python int), cast back to float32 by np.maximum.
  const floor = Math.fround(top - 80);
  const coefficients = Array.from({ length: N_MFCC }, () => new Float32Array(frames));
  db.forEach((col, t) => {
    const x = new Float64Array(N_MELS);
    for (let m = 0; m < N_MELS; m++) x[m] = Math.max(col[m]!, floor);
    const c = dct2(x);
    const scale0 = Math.sqrt(1 / (4 * N_MELS));
    const scale = Math.sqrt(1 / (2 * N_MELS));
    for (let k = 0; k < N_MFCC; k++) coefficients[k]![t] = Math.fround(2 * c[k]! * (k === 0 ? scale0 : scale));
  });
  return { coefficients, frames };
}

/**
 * `librosa.util.normalize(S, axis=1)` (norm=inf): each row divided by its largest magnitude (in
 * float64, stored as float32); a row whose largest magnitude is below float32's smallest normal
 * number is left as it is.
 */
export function normalizeRows(rows: Float32Array[]): Float32Array[] {
  const tiny = 2 ** -126;
  return rows.map((row) => {
    let max = 0;
    for (const v of row) {
      if (!Number.isFinite(v)) throw new Error("Input must be finite");
      if (Math.abs(v) > max) max = Math.abs(v);
    }
    const length = max < tiny ? 1 : max;
    return row.map((v) => Math.fround(v / length));
  });
}

/** |STFT|² frame by frame (`power[t][k]`, 1025 float32 bins), as librosa.stft with center=True, pad_mode='constant'. */
function powerSpectrogram(y: Float32Array): Float32Array[] {
  const window = hannWindow();
  const frames = 1 + Math.floor(y.length / HOP);
  const fft = new RealFft(N_FFT);
  const out: Float32Array[] = [];
  const buf = new Float64Array(N_FFT);
  for (let t = 0; t < frames; t++) {
    // frame t starts at t·hop − n_fft/2 in y (zeros outside it)
    const start = t * HOP - N_FFT / 2;
    for (let n = 0; n < N_FFT; n++) {
      const i = start + n;
      buf[n] = i >= 0 && i < y.length ? window[n]! * y[i]! : 0;
    }
    const { re, im } = fft.transform(buf);
    const p = new Float32Array(N_FFT / 2 + 1);
    for (let k = 0; k <= N_FFT / 2; k++) {
      const a = Math.fround(re[k]!);
      const b = Math.fround(im[k]!);
      const mag = complexAbs32(a, b);
      p[k] = Math.fround(mag * mag);
    }
    out.push(p);
  }
  return out;
}

/** np.abs of a complex64 (float32 parts): the hypotenuse rounded to float32. */
function complexAbs32(a: number, b: number): number {
  return Math.fround(Math.sqrt(a * a + b * b));
}

/** scipy.signal.get_window('hann', 2048, fftbins=True): 0.5 + 0.5·cos(linspace(−π, π, 2049)), the last dropped. */
function hannWindow(): Float64Array {
  const w = new Float64Array(N_FFT);
  const step = (Math.PI - -Math.PI) / N_FFT;
  for (let i = 0; i < N_FFT; i++) w[i] = 0.5 + 0.5 * Math.cos(i * step + -Math.PI);
  return w;
}

/** One mel filter: its float32 weights from bin `start` on (the bins outside are 0). */
interface MelFilter {
  start: number;
  weights: Float32Array;
}

/** `librosa.filters.mel(sr=sr, n_fft=2048, n_mels=128)`: Slaney's mel scale and area normalisation, float32. */
function melBasis(sr: number): MelFilter[] {
  const bins = N_FFT / 2 + 1;
  const val = 1.0 / (N_FFT * (1.0 / sr));
  const fftFreqs = Float64Array.from({ length: bins }, (_, k) => k * val);
  const melF = melFrequencies(N_MELS + 2, 0, sr / 2);
  const filters: MelFilter[] = [];
  for (let i = 0; i < N_MELS; i++) {
    const lowerDiff = melF[i + 1]! - melF[i]!;
    const upperDiff = melF[i + 2]! - melF[i + 1]!;
    const enorm = 2.0 / (melF[i + 2]! - melF[i]!);
    const full = new Float32Array(bins);
    let first = -1;
    let last = -1;
    for (let k = 0; k < bins; k++) {
      const lower = -(melF[i]! - fftFreqs[k]!) / lowerDiff;
      const upper = (melF[i + 2]! - fftFreqs[k]!) / upperDiff;
      const w = Math.fround(Math.fround(Math.max(0, Math.min(lower, upper))) * enorm);
      full[k] = w;
      if (w !== 0) {
        if (first < 0) first = k;
        last = k;
      }
    }
    filters.push(first < 0 ? { start: 0, weights: new Float32Array(0) } : { start: first, weights: full.slice(first, last + 1) });
  }
  return filters;
}

const F_SP = 200.0 / 3;
const MIN_LOG_HZ = 1000.0;
const MIN_LOG_MEL = MIN_LOG_HZ / F_SP;
const LOGSTEP = Math.log(6.4) / 27.0;

/** `librosa.mel_frequencies(n, fmin, fmax)` (Slaney): `mel_to_hz(linspace(hz_to_mel(fmin), hz_to_mel(fmax), n))`. */
function melFrequencies(n: number, fmin: number, fmax: number): Float64Array {
  const hzToMel = (f: number) => (f >= MIN_LOG_HZ ? MIN_LOG_MEL + Math.log(f / MIN_LOG_HZ) / LOGSTEP : (f - 0.0) / F_SP);
  const minMel = hzToMel(fmin);
  const maxMel = hzToMel(fmax);
  const step = (maxMel - minMel) / (n - 1);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const mel = i === n - 1 ? maxMel : i * step + minMel;
    out[i] = mel >= MIN_LOG_MEL ? MIN_LOG_HZ * Math.exp(LOGSTEP * (mel - MIN_LOG_MEL)) : 0.0 + F_SP * mel;
  }
  return out;
}

/** A radix-2 FFT of real float64 input, bins 0..n/2. */
class RealFft {
  private readonly cos: Float64Array;
  private readonly sin: Float64Array;
  private readonly rev: Uint32Array;
  private readonly re: Float64Array;
  private readonly im: Float64Array;
  constructor(private readonly n: number) {
    this.cos = Float64Array.from({ length: n / 2 }, (_, k) => Math.cos((2 * Math.PI * k) / n));
    this.sin = Float64Array.from({ length: n / 2 }, (_, k) => -Math.sin((2 * Math.PI * k) / n));
    const bits = Math.log2(n);
    this.rev = Uint32Array.from({ length: n }, (_, i) => {
      let r = 0;
      for (let b = 0; b < bits; b++) r |= ((i >> b) & 1) << (bits - 1 - b);
      return r;
    });
    this.re = new Float64Array(n);
    this.im = new Float64Array(n);
  }

  transform(x: Float64Array): { re: Float64Array; im: Float64Array } {
    const { n, re, im } = this;
    for (let i = 0; i < n; i++) {
      re[this.rev[i]!] = x[i]!;
      im[this.rev[i]!] = 0;
    }
    for (let size = 2; size <= n; size *= 2) {
      const halfSize = size / 2;
      const step = n / size;
      for (let i = 0; i < n; i += size) {
        for (let j = 0; j < halfSize; j++) {
          const c = this.cos[j * step]!;
          const s = this.sin[j * step]!;
          const a = i + j;
          const b = a + halfSize;
          const tr = re[b]! * c - im[b]! * s;
          const ti = re[b]! * s + im[b]! * c;
          re[b] = re[a]! - tr;
          im[b] = im[a]! - ti;
          re[a] = re[a]! + tr;
          im[a] = im[a]! + ti;
        }
      }
    }
    return { re, im };
  }
}
