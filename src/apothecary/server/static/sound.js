// Sound cues made in code with WebAudio: no files. The mute switch is remembered.

import { setting, setSetting } from "./api.js";

let context = null;

export function isMuted() {
  return setting("muted", "false") === "true";
}

export function setMuted(muted) {
  setSetting("muted", muted ? "true" : "false");
}

// Browsers let a page make sound only after a gesture: call this from a click or key press.
export function unlock() {
  if (context || !(window.AudioContext || window.webkitAudioContext)) return;
  try {
    context = new (window.AudioContext || window.webkitAudioContext)();
  } catch {
    context = null;
  }
}

function tone(frequency, start, duration, { type = "sine", gain = 0.08 } = {}) {
  const osc = context.createOscillator();
  const amp = context.createGain();
  osc.type = type;
  osc.frequency.value = frequency;
  const t0 = context.currentTime + start;
  amp.gain.setValueAtTime(0.0001, t0);
  amp.gain.exponentialRampToValueAtTime(gain, t0 + 0.02);
  amp.gain.exponentialRampToValueAtTime(0.0001, t0 + duration);
  osc.connect(amp).connect(context.destination);
  osc.start(t0);
  osc.stop(t0 + duration + 0.05);
}

const CUES = {
  // Two rising notes: it is your turn.
  turn: () => {
    tone(660, 0, 0.18);
    tone(880, 0.14, 0.25);
  },
  // A low falling pair: a death, or something revealed.
  death: () => {
    tone(220, 0, 0.35, { type: "triangle", gain: 0.1 });
    tone(165, 0.22, 0.5, { type: "triangle", gain: 0.1 });
  },
  reveal: () => {
    tone(523, 0, 0.12, { type: "triangle" });
    tone(392, 0.1, 0.22, { type: "triangle" });
  },
  // A small chord: the game is over.
  over: () => {
    tone(523, 0, 0.6);
    tone(659, 0.08, 0.6);
    tone(784, 0.16, 0.8);
  },
};

export function play(cue) {
  if (isMuted() || !context || !CUES[cue]) return;
  if (context.state === "suspended") context.resume().catch(() => {});
  try {
    CUES[cue]();
  } catch {
    /* sound is a nicety */
  }
}
