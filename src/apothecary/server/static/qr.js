// A small QR code encoder: byte mode, error correction level M, versions 1 to 10
// (up to 213 bytes, plenty for an invite link). Written for apothecary from the
// QR code standard (ISO/IEC 18004); no dependencies.
//
//   encode(text, {mask})  -> {version, size, mask, modules}   modules[y][x]: true = dark
//   svg(text, {label})    -> an <svg> element drawing it, with a quiet zone of 4 modules

// Per version at level M: [error correction codewords per block, [blocks, data codewords]...]
const BLOCKS_M = [
  null,
  [10, [1, 16]],
  [16, [1, 28]],
  [26, [1, 44]],
  [18, [2, 32]],
  [24, [2, 43]],
  [16, [4, 27]],
  [18, [4, 31]],
  [22, [2, 38], [2, 39]],
  [22, [3, 36], [2, 37]],
  [26, [4, 43], [1, 44]],
];

// Centres of the alignment patterns, per version.
const ALIGN = [
  null, [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34],
  [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50],
];

const MAX_VERSION = 10;

// -- arithmetic in GF(256), modulo x^8 + x^4 + x^3 + x^2 + 1 -------------------------
const EXP = new Uint8Array(512);
const LOG = new Uint8Array(256);
{
  let x = 1;
  for (let i = 0; i < 255; i++) {
    EXP[i] = x;
    LOG[x] = i;
    x <<= 1;
    if (x & 0x100) x ^= 0x11d;
  }
  for (let i = 255; i < 512; i++) EXP[i] = EXP[i - 255];
}

function mul(a, b) {
  return a === 0 || b === 0 ? 0 : EXP[LOG[a] + LOG[b]];
}

// The generator polynomial of degree n (coefficients, highest power first, the leading 1 left out).
function generator(n) {
  let poly = [1];
  for (let i = 0; i < n; i++) {
    const next = new Array(poly.length + 1).fill(0);
    for (let j = 0; j < poly.length; j++) {
      next[j] ^= poly[j];
      next[j + 1] ^= mul(poly[j], EXP[i]);
    }
    poly = next;
  }
  return poly.slice(1);
}

// The n error correction codewords of data.
export function reedSolomon(data, n) {
  const gen = generator(n);
  const rem = new Array(n).fill(0);
  for (const byte of data) {
    const factor = byte ^ rem.shift();
    rem.push(0);
    for (let i = 0; i < n; i++) rem[i] ^= mul(gen[i], factor);
  }
  return rem;
}

// -- the data codewords -------------------------------------------------------------------
function utf8(text) {
  return Array.from(new TextEncoder().encode(text));
}

function dataCapacity(version) {
  const [, ...groups] = BLOCKS_M[version];
  return groups.reduce((sum, [count, size]) => sum + count * size, 0);
}

function chooseVersion(length) {
  for (let v = 1; v <= MAX_VERSION; v++) {
    const countBits = v < 10 ? 8 : 16;
    if (4 + countBits + 8 * length <= dataCapacity(v) * 8) return v;
  }
  throw new RangeError(`text too long for a QR code of version ${MAX_VERSION} (${length} bytes)`);
}

function dataCodewords(bytes, version) {
  const bits = [];
  const put = (value, count) => {
    for (let i = count - 1; i >= 0; i--) bits.push((value >>> i) & 1);
  };
  put(0b0100, 4); // byte mode
  put(bytes.length, version < 10 ? 8 : 16);
  for (const b of bytes) put(b, 8);
  const capacity = dataCapacity(version) * 8;
  put(0, Math.min(4, capacity - bits.length)); // terminator
  while (bits.length % 8) bits.push(0);
  const words = [];
  for (let i = 0; i < bits.length; i += 8) {
    words.push(bits.slice(i, i + 8).reduce((acc, bit) => (acc << 1) | bit, 0));
  }
  for (let pad = 0xec; words.length < capacity / 8; pad ^= 0xec ^ 0x11) words.push(pad);
  return words;
}

// Split into blocks, add error correction, interleave.
function codewords(data, version) {
  const [ecLength, ...groups] = BLOCKS_M[version];
  const blocks = [];
  let at = 0;
  for (const [count, size] of groups) {
    for (let i = 0; i < count; i++) {
      const chunk = data.slice(at, at + size);
      at += size;
      blocks.push({ data: chunk, ec: reedSolomon(chunk, ecLength) });
    }
  }
  const out = [];
  const longest = Math.max(...blocks.map((b) => b.data.length));
  for (let i = 0; i < longest; i++) {
    for (const b of blocks) if (i < b.data.length) out.push(b.data[i]);
  }
  for (let i = 0; i < ecLength; i++) for (const b of blocks) out.push(b.ec[i]);
  return out;
}

// -- the matrix ---------------------------------------------------------------------------
function emptyGrid(size, value) {
  return Array.from({ length: size }, () => new Array(size).fill(value));
}

function drawFunctionPatterns(version, modules, isFunction) {
  const size = modules.length;
  const set = (x, y, dark) => {
    modules[y][x] = dark;
    isFunction[y][x] = true;
  };
  // Timing patterns.
  for (let i = 0; i < size; i++) {
    set(6, i, i % 2 === 0);
    set(i, 6, i % 2 === 0);
  }
  // Finder patterns with their separators.
  for (const [cx, cy] of [[3, 3], [size - 4, 3], [3, size - 4]]) {
    for (let dy = -4; dy <= 4; dy++) {
      for (let dx = -4; dx <= 4; dx++) {
        const x = cx + dx;
        const y = cy + dy;
        if (x < 0 || y < 0 || x >= size || y >= size) continue;
        const ring = Math.max(Math.abs(dx), Math.abs(dy));
        set(x, y, ring !== 2 && ring !== 4);
      }
    }
  }
  // Alignment patterns (not over the finders).
  const centres = ALIGN[version];
  const last = centres.length - 1;
  centres.forEach((cx, i) => {
    centres.forEach((cy, j) => {
      if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) return;
      for (let dy = -2; dy <= 2; dy++) {
        for (let dx = -2; dx <= 2; dx++) {
          set(cx + dx, cy + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
        }
      }
    });
  });
  // Reserve the format areas (drawn later, per mask) and the dark module.
  drawFormat(0, modules, isFunction);
  set(8, size - 8, true);
  // Version information, versions 7 and up.
  if (version >= 7) {
    let rem = version;
    for (let i = 0; i < 12; i++) rem = (rem << 1) ^ ((rem >>> 11) * 0x1f25);
    const bits = (version << 12) | rem;
    for (let i = 0; i < 18; i++) {
      const dark = ((bits >>> i) & 1) === 1;
      const a = size - 11 + (i % 3);
      const b = Math.floor(i / 3);
      set(a, b, dark);
      set(b, a, dark);
    }
  }
}

// The 15 format bits (level M is 00) for this mask, in both copies.
function drawFormat(mask, modules, isFunction) {
  const size = modules.length;
  const data = (0b00 << 3) | mask;
  let rem = data;
  for (let i = 0; i < 10; i++) rem = (rem << 1) ^ ((rem >>> 9) * 0x537);
  const bits = ((data << 10) | rem) ^ 0x5412;
  const bit = (i) => ((bits >>> i) & 1) === 1;
  const set = (x, y, dark) => {
    modules[y][x] = dark;
    isFunction[y][x] = true;
  };
  for (let i = 0; i <= 5; i++) set(8, i, bit(i));
  set(8, 7, bit(6));
  set(8, 8, bit(7));
  set(7, 8, bit(8));
  for (let i = 9; i < 15; i++) set(14 - i, 8, bit(i));
  for (let i = 0; i < 8; i++) set(size - 1 - i, 8, bit(i));
  for (let i = 8; i < 15; i++) set(8, size - 15 + i, bit(i));
}

function placeData(words, modules, isFunction) {
  const size = modules.length;
  let i = 0;
  const total = words.length * 8;
  for (let right = size - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5; // skip the vertical timing pattern
    const upward = ((right + 1) & 2) === 0;
    for (let vert = 0; vert < size; vert++) {
      const y = upward ? size - 1 - vert : vert;
      for (let j = 0; j < 2; j++) {
        const x = right - j;
        if (isFunction[y][x]) continue;
        modules[y][x] = i < total && ((words[i >>> 3] >>> (7 - (i & 7))) & 1) === 1;
        i++;
      }
    }
  }
}

const MASKS = [
  (x, y) => (x + y) % 2 === 0,
  (x, y) => y % 2 === 0,
  (x, _y) => x % 3 === 0,
  (x, y) => (x + y) % 3 === 0,
  (x, y) => (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0,
  (x, y) => ((x * y) % 2) + ((x * y) % 3) === 0,
  (x, y) => (((x * y) % 2) + ((x * y) % 3)) % 2 === 0,
  (x, y) => (((x + y) % 2) + ((x * y) % 3)) % 2 === 0,
];

function applyMask(mask, modules, isFunction) {
  const size = modules.length;
  const test = MASKS[mask];
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      if (!isFunction[y][x] && test(x, y)) modules[y][x] = !modules[y][x];
    }
  }
}

// The standard's penalty score of a finished matrix (lower is better).
export function penalty(modules) {
  const size = modules.length;
  let score = 0;
  const lines = [];
  for (let y = 0; y < size; y++) lines.push(modules[y]);
  for (let x = 0; x < size; x++) lines.push(modules.map((row) => row[x]));
  const pattern = [true, false, true, true, true, false, true];
  for (const line of lines) {
    // N1: runs of five or more of one colour.
    let run = 1;
    for (let i = 1; i <= size; i++) {
      if (i < size && line[i] === line[i - 1]) {
        run++;
      } else {
        if (run >= 5) score += 3 + (run - 5);
        run = 1;
      }
    }
    // N3: a finder-like 1:1:3:1:1 with four light modules on one side (the outside is light).
    const at = (i) => (i >= 0 && i < size ? line[i] : false);
    for (let i = -4; i < size; i++) {
      if (!pattern.every((dark, k) => at(i + k) === dark)) continue;
      const lightBefore = [1, 2, 3, 4].every((k) => !at(i - k));
      const lightAfter = [7, 8, 9, 10].every((k) => !at(i + k));
      if (lightBefore || lightAfter) score += 40;
    }
  }
  // N2: 2x2 blocks of one colour.
  for (let y = 0; y < size - 1; y++) {
    for (let x = 0; x < size - 1; x++) {
      const c = modules[y][x];
      if (c === modules[y][x + 1] && c === modules[y + 1][x] && c === modules[y + 1][x + 1]) {
        score += 3;
      }
    }
  }
  // N4: the share of dark modules away from half.
  let dark = 0;
  for (const row of modules) for (const cell of row) if (cell) dark++;
  const total = size * size;
  const k = Math.ceil(Math.abs(dark * 20 - total * 10) / total) - 1;
  score += Math.max(0, k) * 10;
  return score;
}

export function encode(text, { mask = null } = {}) {
  const bytes = utf8(String(text));
  const version = chooseVersion(bytes.length);
  const size = 17 + 4 * version;
  const words = codewords(dataCodewords(bytes, version), version);
  const build = (m) => {
    const modules = emptyGrid(size, false);
    const isFunction = emptyGrid(size, false);
    drawFunctionPatterns(version, modules, isFunction);
    placeData(words, modules, isFunction);
    applyMask(m, modules, isFunction);
    drawFormat(m, modules, isFunction);
    return modules;
  };
  if (mask !== null) return { version, size, mask, modules: build(mask) };
  let best = null;
  for (let m = 0; m < 8; m++) {
    const modules = build(m);
    const score = penalty(modules);
    if (best === null || score < best.score) best = { version, size, mask: m, modules, score };
  }
  return { version: best.version, size: best.size, mask: best.mask, modules: best.modules };
}

const SVG_NS = "http://www.w3.org/2000/svg";

// An <svg> of the code: one path of dark squares on a light ground, 4 modules of quiet zone.
export function svg(text, { label = "QR code" } = {}) {
  const { size, modules, version } = encode(text);
  const quiet = 4;
  const full = size + 2 * quiet;
  const root = document.createElementNS(SVG_NS, "svg");
  root.setAttribute("viewBox", `0 0 ${full} ${full}`);
  root.setAttribute("role", "img");
  root.setAttribute("aria-label", label);
  root.setAttribute("shape-rendering", "crispEdges");
  root.dataset.modules = String(size);
  root.dataset.version = String(version);
  root.classList.add("qr");
  const ground = document.createElementNS(SVG_NS, "rect");
  ground.setAttribute("width", String(full));
  ground.setAttribute("height", String(full));
  ground.setAttribute("fill", "#fff");
  root.append(ground);
  let d = "";
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      if (modules[y][x]) d += `M${x + quiet} ${y + quiet}h1v1h-1z`;
    }
  }
  const path = document.createElementNS(SVG_NS, "path");
  path.setAttribute("d", d);
  path.setAttribute("fill", "#000");
  root.append(path);
  return root;
}
