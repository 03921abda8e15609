function (hit) {
  const up = (n) => n.parentNode || n.host || (n.nodeType === 9 && n.defaultView && n.defaultView.frameElement) || null;
  for (let n = hit; n; n = up(n)) if (n === this) return [true, ''];
  for (let n = hit; n; n = up(n)) if (n.localName === 'label' && n.control === this) return [true, ''];
  const e = hit.nodeType === 1 ? hit : hit.parentElement;
  let d = e ? e.localName : 'something';
  if (e && e.id) d += '#' + e.id;
  if (e && e.classList && e.classList.length) d += '.' + Array.from(e.classList).slice(0, 2).join('.');
  const t = e ? (e.innerText || '').trim().replace(/\s+/g, ' ').slice(0, 40) : '';
  return [false, t ? d + ' ("' + t + '")' : d];
}