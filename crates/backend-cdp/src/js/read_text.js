function () {
  // The element's text as the page shows it, and its bold, italic, underlined or struck-through
  // runs: [start, end, styles] in characters (code points) of that text. A field's value and a
  // password's mask carry no runs.
  if (this.localName === 'input' && this.type === 'password') return { text: this.value ? '••••' : '', runs: [] };
  if (this.localName === 'input' || this.localName === 'textarea') return { text: String(this.value), runs: [] };
  const text = this.innerText || this.textContent || '';
  const MAX_NODES = 5000, MAX_RUNS = 200, root = this;
  const runs = [];
  const styles = (el) => {
    const out = [];
    const cs = getComputedStyle(el);
    const w = cs.fontWeight;
    if (w === 'bold' || parseInt(w, 10) >= 600) out.push('bold');
    if (cs.fontStyle === 'italic' || cs.fontStyle.startsWith('oblique')) out.push('italic');
    // Decorations are drawn by an ancestor, not inherited: look up to the element read.
    let under = false, strike = false;
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      const line = getComputedStyle(e).textDecorationLine || '';
      under = under || line.includes('underline');
      strike = strike || line.includes('line-through');
      if (e === root) break;
    }
    if (under) out.push('underline');
    if (strike) out.push('strikethrough');
    return out;
  };
  const walker = document.createTreeWalker(this, NodeFilter.SHOW_TEXT);
  let at = 0, seen = 0;
  for (let t = walker.nextNode(); t && seen < MAX_NODES && runs.length < MAX_RUNS; t = walker.nextNode()) {
    seen++;
    const words = t.data.replace(/\s+/g, ' ').trim();
    if (!words || !t.parentElement) continue;
    const i = text.indexOf(words, at);
    if (i < 0) continue;
    at = i + words.length;
    const s = styles(t.parentElement);
    if (!s.length) continue;
    const last = runs[runs.length - 1];
    if (last && last[1] === i && last[2].join() === s.join()) last[1] = at;
    else runs.push([i, at, s]);
  }
  // UTF-16 offsets to code points, where the text has characters beyond the BMP.
  if (/[\uD800-\uDFFF]/.test(text)) {
    const cp = (u) => Array.from(text.slice(0, u)).length;
    for (const r of runs) { r[0] = cp(r[0]); r[1] = cp(r[1]); }
  }
  return { text, runs };
}
