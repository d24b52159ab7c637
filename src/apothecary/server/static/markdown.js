// A small, safe Markdown renderer for the rules pages: headings, paragraphs,
// lists (nested by indentation), emphasis, inline code, code blocks, tables,
// block quotes, rules and links. It builds DOM nodes and sets every piece of
// text with textContent, so nothing in the source can become HTML.

import { h } from "./dom.js";

// -- inline: `code`, **strong**, *em* / _em_, [text](link) -------------------------------------
const INLINE = /(`+)([\s\S]*?[^`])\1(?!`)|\*\*(?=\S)([\s\S]*?\S)\*\*|__(?=\S)([\s\S]*?\S)__|\*(?=\S)([\s\S]*?\S)\*|(?<![A-Za-z0-9])_(?=\S)([\s\S]*?\S)_(?![A-Za-z0-9])|\[([^\]]+)\]\(([^)\s]+)\)/;

function safeHref(href) {
  // Only links that go somewhere harmless: the web, this site, an anchor.
  if (/^(https?:\/\/|\/(?!\/)|#|\.{0,2}\/)/i.test(href)) return href;
  if (/^[\w.-]+(\.md)?(#[\w-]*)?$/.test(href)) return href;
  return null;
}

export function inline(text) {
  const out = [];
  let rest = text;
  while (rest) {
    const m = INLINE.exec(rest);
    if (!m) {
      out.push(rest);
      break;
    }
    if (m.index > 0) out.push(rest.slice(0, m.index));
    if (m[1]) out.push(h("code", {}, m[2].replace(/^ (.*) $/, "$1")));
    else if (m[3] !== undefined || m[4] !== undefined) out.push(h("strong", {}, inline(m[3] ?? m[4])));
    else if (m[5] !== undefined || m[6] !== undefined) out.push(h("em", {}, inline(m[5] ?? m[6])));
    else {
      const href = safeHref(m[8]);
      out.push(href ? h("a", { href }, inline(m[7])) : inline(m[7]));
    }
    rest = rest.slice(m.index + m[0].length);
  }
  return out;
}

// -- blocks ------------------------------------------------------------------------------------
const indentOf = (line) => line.match(/^ */)[0].length;
const LIST_ITEM = /^( *)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const isBlank = (line) => line.trim() === "";

function slug(text) {
  return text
    .toLowerCase()
    .replace(/[^\w\s-]/g, "")
    .trim()
    .replace(/\s+/g, "-");
}

function splitRow(line) {
  let row = line.trim();
  if (row.startsWith("|")) row = row.slice(1);
  if (row.endsWith("|") && !row.endsWith("\\|")) row = row.slice(0, -1);
  const cells = [];
  let cell = "";
  let inCode = false;
  for (let i = 0; i < row.length; i++) {
    const c = row[i];
    if (c === "\\" && row[i + 1] === "|") {
      cell += "|";
      i++;
    } else if (c === "`") {
      inCode = !inCode;
      cell += c;
    } else if (c === "|" && !inCode) {
      cells.push(cell.trim());
      cell = "";
    } else cell += c;
  }
  cells.push(cell.trim());
  return cells;
}

const TABLE_RULE = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;

function blocks(lines) {
  const out = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (isBlank(line)) {
      i++;
      continue;
    }
    // Fenced code.
    const fence = line.match(/^\s*(```|~~~)\s*([\w-]*)\s*$/);
    if (fence) {
      const body = [];
      i++;
      while (i < lines.length && !lines[i].trim().startsWith(fence[1])) body.push(lines[i++]);
      i++;
      const code = h("code", {}, body.join("\n"));
      if (fence[2]) code.dataset.lang = fence[2];
      out.push(h("pre", {}, code));
      continue;
    }
    // Headings.
    const heading = line.match(/^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/);
    if (heading) {
      const level = heading[1].length;
      out.push(h(`h${level}`, { id: slug(heading[2]) }, inline(heading[2])));
      i++;
      continue;
    }
    // A rule.
    if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) {
      out.push(h("hr"));
      i++;
      continue;
    }
    // A table: a row, then a row of dashes.
    if (line.includes("|") && i + 1 < lines.length && TABLE_RULE.test(lines[i + 1])) {
      const head = splitRow(line);
      const aligns = splitRow(lines[i + 1]).map((c) =>
        c.endsWith(":") ? (c.startsWith(":") ? "center" : "right") : null,
      );
      i += 2;
      const rows = [];
      while (i < lines.length && lines[i].includes("|") && !isBlank(lines[i])) rows.push(splitRow(lines[i++]));
      const cell = (tag, text, k) => h(tag, aligns[k] ? { style: { textAlign: aligns[k] } } : {}, inline(text));
      out.push(
        h(
          "div",
          { class: "md-table" },
          h(
            "table",
            {},
            h("thead", {}, h("tr", {}, head.map((c, k) => cell("th", c, k)))),
            h("tbody", {}, rows.map((r) => h("tr", {}, head.map((_, k) => cell("td", r[k] ?? "", k))))),
          ),
        ),
      );
      continue;
    }
    // A block quote.
    if (/^\s{0,3}>/.test(line)) {
      const body = [];
      while (i < lines.length && /^\s{0,3}>/.test(lines[i])) body.push(lines[i++].replace(/^\s{0,3}> ?/, ""));
      out.push(h("blockquote", {}, blocks(body)));
      continue;
    }
    // A list: items at this indentation; deeper lines belong to the item above.
    const item = line.match(LIST_ITEM);
    if (item) {
      const base = item[1].length;
      const ordered = /\d/.test(item[2]);
      const list = h(ordered ? "ol" : "ul");
      if (ordered && parseInt(item[2], 10) !== 1) list.setAttribute("start", String(parseInt(item[2], 10)));
      while (i < lines.length) {
        const m = lines[i].match(LIST_ITEM);
        if (!m || m[1].length !== base || /\d/.test(m[2]) !== ordered) break;
        const contentIndent = lines[i].length - m[3].length;
        const body = [m[3]];
        i++;
        while (i < lines.length) {
          const next = lines[i];
          if (isBlank(next)) {
            // A blank line ends the item unless the next line is indented under it.
            if (i + 1 < lines.length && !isBlank(lines[i + 1]) && indentOf(lines[i + 1]) > base) {
              body.push("");
              i++;
              continue;
            }
            break;
          }
          const sub = next.match(LIST_ITEM);
          if (sub && sub[1].length <= base) break;
          if (!sub && indentOf(next) <= base && /^\s*(#|```|>|\|)/.test(next)) break;
          body.push(next.slice(Math.min(indentOf(next), contentIndent)));
          i++;
        }
        const inner = blocks(body);
        // A one-paragraph item reads as plain text, not a <p>.
        if (inner.length && inner[0].tagName === "P" && !body.includes("")) {
          const first = inner.shift();
          list.append(h("li", {}, [...first.childNodes], inner));
        } else list.append(h("li", {}, inner));
        if (i < lines.length && isBlank(lines[i])) {
          // A blank line between items keeps the list going.
          let j = i;
          while (j < lines.length && isBlank(lines[j])) j++;
          const m2 = j < lines.length && lines[j].match(LIST_ITEM);
          if (m2 && m2[1].length === base && /\d/.test(m2[2]) === ordered) i = j;
        }
      }
      out.push(list);
      continue;
    }
    // A paragraph: lines up to a blank line or another block.
    const body = [];
    while (
      i < lines.length &&
      !isBlank(lines[i]) &&
      !(body.length && (LIST_ITEM.test(lines[i]) || /^\s{0,3}(#{1,6}\s|```|~~~|>)/.test(lines[i])))
    ) {
      body.push(lines[i].trim());
      i++;
    }
    out.push(h("p", {}, inline(body.join(" "))));
  }
  return out;
}

// A DocumentFragment of the rendered Markdown.
export function render(markdown) {
  const fragment = document.createDocumentFragment();
  fragment.append(...blocks(String(markdown).replace(/\r\n?/g, "\n").split("\n")));
  return fragment;
}

// The Markdown source of the first real paragraph (for a game card's longer summary; render
// it with inline()): headings, lists, code, tables and short notes are skipped, and so is any
// paragraph that ``skip`` matches.
export function firstParagraph(markdown, { skip = null, minLength = 100 } = {}) {
  const lines = String(markdown).replace(/\r\n?/g, "\n").split("\n");
  let body = [];
  let fenced = false;
  const done = () => {
    const text = body.join(" ");
    body = [];
    return text.length >= minLength && !(skip && skip.test(text)) ? text : null;
  };
  for (const line of lines) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced || isBlank(line) || /^\s*(#|```|~~~|\||>|[-*+]\s|\d+[.)]\s)/.test(line)) {
      if (body.length) {
        const text = done();
        if (text) return text;
      }
      continue;
    }
    body.push(line.trim());
  }
  return (body.length && done()) || "";
}
