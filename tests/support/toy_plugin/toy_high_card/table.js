// Toy high card's browser table: served from this plugin's own package at the URL the
// server gives in the game's info. It draws the seat's card and the moves made; the
// shell's move buttons play it.
export function mount(root, ctx) {
  root.classList.add("toy-table");
  const card = document.createElement("p");
  card.className = "toy-card";
  const moves = document.createElement("p");
  moves.className = "toy-moves";
  root.append(card, moves);
  return {
    update(msg) {
      const obs = (msg && msg.observation) || {};
      card.textContent = `Your card: ${obs.my_card ?? "—"}`;
      const made = obs.moves || [];
      moves.textContent = made.length ? `Moves: ${made.join(", ")}` : "No moves yet";
      if (Array.isArray(obs.cards)) moves.textContent += ` · cards ${obs.cards.join(" and ")}`;
    },
    destroy() {
      root.replaceChildren();
    },
  };
}
