// uidriver's page walker: one pass over the DOM (same-origin frames and open shadow roots
// included) that computes what an accessibility tree would say (role, name, value, states,
// capabilities, box) and returns it as one compact JSON string. It runs in an isolated world,
// so page scripts neither see it nor can tamper with it; elements get stable numeric ids kept
// in a WeakMap for the life of the document (`extract.rs` turns them into node handles,
// `act.rs` resolves them back to elements).
//
// Cost model (measured on std/vec/struct.Vec.html, 16k elements): DOM binding calls dominate,
// so each element's attributes are read in one pass (`getAttributeNames`), its role is
// computed once (by the parent, which needs it to see through wrappers), and layout is only
// read for elements that can show it (one `checkVisibility`, one `getBoundingClientRect`).
//
// Evaluated as an expression whose value is a function of (opts) -> string.
// opts: { max: number of nodes, root: element id to start from (0 = the document) }.
// Output: {"nonce", "url", "title", "ms" (time spent in the page), "vp": [innerW, innerH,
// scrollX, scrollY, dpr, screenX, screenY, outerW, outerH], "nodes": [[hid, parent, role,
// tag, name, value, states, caps, x, y, w, h, domId, textLen, description, numeric|null],
// ...], "trunc": [[index, reason]]}.
(function () {
  const KEY = Symbol.for('uidriver');
  const U = globalThis[KEY] || (globalThis[KEY] = {
    ids: new WeakMap(),
    els: new Map(),
    next: 1,
    nonce: Math.random().toString(36).slice(2, 10),
  });
  // State bits (mirrored in extract.rs).
  const S_FOCUSED = 1, S_FOCUSABLE = 2, S_EDITABLE = 4, S_MULTILINE = 8, S_READONLY = 16,
    S_CHECKED = 32, S_MIXED = 64, S_PRESSED = 128, S_SELECTED = 256, S_SELECTABLE = 512,
    S_EXPANDED = 1024, S_COLLAPSED = 2048, S_DISABLED = 4096, S_HIDDEN = 8192, S_MODAL = 16384,
    S_PASSWORD = 32768, S_REQUIRED = 65536, S_INVALID = 131072, S_BUSY = 262144,
    S_MULTISELECTABLE = 524288;
  // Capability bits (mirrored in extract.rs).
  const C_PRESS = 1, C_TOGGLE = 2, C_SELECT = 4, C_SETTEXT = 8, C_TYPETEXT = 16,
    C_SETVALUE = 32, C_EXPAND = 64, C_SCROLL = 128, C_FOCUS = 256, C_READTEXT = 512,
    C_CLICK = 1024;
  // Names longer than this are cut (the full text is `read_text`'s job).
  const NAME_CAP = 300;

  // Elements that never render content.
  const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'meta', 'link',
    'base', 'title', 'param', 'source', 'track', 'datalist']);
  // Phrasing elements with no semantics of their own: their text joins the parent's.
  const PHRASING = new Set(['span', 'b', 'i', 'em', 'strong', 'small', 'code', 'kbd', 'samp',
    'var', 'sub', 'sup', 'mark', 'abbr', 'cite', 'q', 's', 'u', 'time', 'data', 'bdi', 'bdo',
    'font', 'tt', 'wbr', 'br', 'del', 'ins', 'dfn', 'big', 'strike', 'nobr', 'center', 'html',
    'body', 'tbody', 'thead', 'tfoot', 'slot', 'picture']);
  const TAG_ROLE = {
    a: 'link', button: 'button', h1: 'heading', h2: 'heading', h3: 'heading', h4: 'heading',
    h5: 'heading', h6: 'heading', p: 'paragraph', pre: 'paragraph', blockquote: 'section',
    img: 'image', svg: 'image', canvas: 'canvas', video: 'group', audio: 'group',
    ul: 'list', ol: 'list', dl: 'list', menu: 'list', li: 'list-item', dt: 'list-item',
    dd: 'paragraph', table: 'table', tr: 'row', td: 'cell', th: 'column-header',
    caption: 'label', form: 'form', fieldset: 'group', legend: 'label', label: 'label',
    nav: 'section', main: 'section', header: 'section', footer: 'section', aside: 'section',
    section: 'section', article: 'section', address: 'section', search: 'section',
    div: 'pane', figure: 'group', figcaption: 'label', hr: 'separator', progress: 'progress-bar',
    meter: 'progress-bar', output: 'label', details: 'group', summary: 'button',
    dialog: 'dialog', iframe: 'document', frame: 'document', textarea: 'text',
    select: 'combo-box', option: 'list-item', optgroup: 'group', colgroup: null, col: null,
    map: null, area: 'link', object: 'group', embed: 'group', math: 'image',
  };
  const ARIA_ROLE = {
    button: 'button', link: 'link', checkbox: 'check-box', radio: 'radio-button',
    switch: 'switch', tab: 'tab', tablist: 'tab-list', tabpanel: 'tab-panel', menu: 'menu',
    menubar: 'menu-bar', menuitem: 'menu-item', menuitemcheckbox: 'check-menu-item',
    menuitemradio: 'radio-menu-item', dialog: 'dialog', alertdialog: 'alert', alert: 'alert',
    textbox: 'text', searchbox: 'text', combobox: 'combo-box', listbox: 'list',
    option: 'list-item', list: 'list', listitem: 'list-item', grid: 'table', table: 'table',
    treegrid: 'tree', row: 'row', cell: 'cell', gridcell: 'cell', columnheader: 'column-header',
    rowheader: 'row-header', tree: 'tree', treeitem: 'tree-item', slider: 'slider',
    spinbutton: 'spin-button', progressbar: 'progress-bar', scrollbar: 'scroll-bar',
    tooltip: 'tooltip', heading: 'heading', img: 'image', image: 'image', figure: 'group',
    separator: 'separator', toolbar: 'toolbar', status: 'status-bar', navigation: 'section',
    main: 'section', banner: 'section', contentinfo: 'section', region: 'section',
    complementary: 'section', search: 'section', form: 'form', group: 'group',
    radiogroup: 'group', document: 'document', article: 'section', note: 'section',
    paragraph: 'paragraph', log: 'section', marquee: 'section', timer: 'label',
    math: 'image', definition: 'paragraph', term: 'list-item', application: 'pane',
    feed: 'list', generic: 'pane', presentation: null, none: null,
  };
  // Roles whose accessible name comes from their content.
  const NAME_FROM_CONTENT = new Set(['link', 'button', 'heading', 'tab', 'menu-item',
    'check-menu-item', 'radio-menu-item', 'tree-item', 'cell', 'column-header', 'row-header',
    'label', 'paragraph', 'tooltip', 'switch', 'check-box', 'radio-button']);
  // Roles that sit inside a line of text (their presence keeps a block "inline-only").
  const INLINE_ROLES = new Set(['link', 'button', 'image', 'text', 'password-text',
    'check-box', 'radio-button', 'combo-box', 'label', 'slider', 'spin-button', 'switch',
    'canvas', 'progress-bar', 'color-chooser']);
  // Roles that may scroll their own content (others are not asked: it costs a layout read).
  const SCROLLERS = new Set(['pane', 'section', 'group', 'list', 'table', 'paragraph', 'text',
    'form', 'dialog', 'document', 'tab-panel', 'tree', 'menu', 'combo-box']);
  const TEXT_INPUTS = new Set(['text', 'search', 'email', 'url', 'tel', 'number', 'date',
    'datetime-local', 'month', 'week', 'time', '']);
  // Elements whose content is not content (controls, media): never descended into.
  const LEAVES = new Set(['input', 'textarea', 'img', 'svg', 'canvas', 'math', 'hr',
    'progress', 'meter', 'video', 'audio', 'select', 'option']);

  function idOf(el) {
    let id = U.ids.get(el);
    if (id === undefined) {
      id = U.next++;
      U.ids.set(el, id);
      U.els.set(id, new WeakRef(el));
    }
    return id;
  }
  U.get = function (id) {
    const r = U.els.get(id);
    const el = r && r.deref();
    return el && el.isConnected ? el : null;
  };
  // Drops map entries of collected elements (only when the map has grown well past the page).
  function prune() {
    if (U.els.size < 4096 || U.els.size < 2 * (U.lastCount || 0)) return;
    for (const [k, r] of U.els) if (!r.deref()) U.els.delete(k);
  }

  function norm(s) {
    return s.replace(/\s+/g, ' ').trim();
  }
  function cap(s) {
    return s.length > NAME_CAP ? s.slice(0, NAME_CAP) : s;
  }

  // The attributes that matter, read in one pass; fields are null when absent.
  const A = {};
  const ATTRS = ['role', 'aria-label', 'aria-labelledby', 'aria-describedby', 'title',
    'tabindex', 'contenteditable', 'aria-disabled', 'aria-required', 'aria-invalid',
    'aria-busy', 'aria-expanded', 'aria-checked', 'aria-pressed', 'aria-selected',
    'aria-modal', 'aria-multiselectable', 'aria-readonly', 'aria-valuenow', 'aria-valuemin',
    'aria-valuemax', 'aria-valuetext', 'onclick', 'href', 'alt', 'placeholder', 'type'];
  const WANTED = new Set(ATTRS);
  function readAttrs(el) {
    for (let i = 0; i < ATTRS.length; i++) A[ATTRS[i]] = null;
    const names = el.getAttributeNames();
    for (let i = 0; i < names.length; i++) {
      const n = names[i];
      if (WANTED.has(n)) A[n] = el.getAttribute(n);
    }
  }

  // Text of a subtree as a line would read it, gathered up to a budget.
  function gather(node, acc) {
    for (let c = node.firstChild; c; c = c.nextSibling) {
      if (acc.n > 2 * NAME_CAP) { acc.more = true; return; }
      const t = c.nodeType;
      if (t === 3) { acc.s += c.data; acc.n += c.data.length; continue; }
      if (t !== 1) continue;
      const tag = c.localName;
      if (SKIP.has(tag)) continue;
      if (tag === 'br') { acc.s += ' '; continue; }
      if (tag === 'img') { const a = c.getAttribute('alt'); if (a) acc.s += ' ' + a + ' '; continue; }
      if (tag === 'input' || tag === 'select' || tag === 'textarea') continue;
      if (c.hasAttributes() && c.getAttribute('aria-hidden') === 'true') continue;
      const blocky = !PHRASING.has(tag) && tag !== 'a';
      if (blocky) acc.s += ' ';
      gather(c.shadowRoot || c, acc);
      if (blocky) acc.s += ' ';
    }
  }
  // [text (capped), full length when capped else 0]
  function textOf(el) {
    const acc = { s: '', n: 0, more: false };
    gather(el.shadowRoot || el, acc);
    const s = norm(acc.s);
    return acc.more || s.length > NAME_CAP ? [cap(s), el.textContent.length] : [s, 0];
  }
  function textOfIds(doc, ids) {
    const out = [];
    for (const id of ids.split(/\s+/)) {
      const e = id && doc.getElementById(id);
      if (e) out.push(textOf(e)[0] || e.getAttribute('aria-label') || '');
    }
    return norm(out.join(' '));
  }

  // The role of an element; null: a wrapper to see through; undefined: not shown at all.
  function roleOf(el, tag) {
    const attrs = el.hasAttributes();
    if (attrs) {
      const r = el.getAttribute('role');
      if (r) {
        const first = r.trim().split(/\s+/)[0];
        if (first in ARIA_ROLE) return ARIA_ROLE[first];
      }
    }
    if (tag === 'input') {
      const t = (el.getAttribute('type') || '').toLowerCase();
      if (t === 'hidden') return undefined;
      if (t === 'checkbox') return 'check-box';
      if (t === 'radio') return 'radio-button';
      if (t === 'range') return 'slider';
      if (t === 'number') return 'spin-button';
      if (t === 'password') return 'password-text';
      if (t === 'color') return 'color-chooser';
      if (t === 'button' || t === 'submit' || t === 'reset' || t === 'image' || t === 'file') return 'button';
      return 'text';
    }
    if (tag === 'a') return attrs && el.hasAttribute('href') ? 'link' : (attrs && el.hasAttribute('tabindex') ? 'pane' : null);
    if (tag === 'select') return el.multiple || el.size > 1 ? 'list' : 'combo-box';
    if (tag === 'th') return el.getAttribute('scope') === 'row' ? 'row-header' : 'column-header';
    if (tag === 'svg') return (attrs && el.hasAttribute('aria-label')) || el.querySelector(':scope > title') ? 'image' : undefined;
    if (PHRASING.has(tag)) {
      if (!attrs) return null;
      if (el.hasAttribute('tabindex')) return 'pane';
      const ce = el.getAttribute('contenteditable');
      if (ce !== null && ce !== 'false' && el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return 'pane';
      if (el.hasAttribute('aria-label') || (el.hasAttribute('title') && tag !== 'abbr')) return 'label';
      return null;
    }
    const t = TAG_ROLE[tag];
    return t !== undefined ? t : 'pane';
  }

  function labelFor(el, doc) {
    if (el.labels && el.labels.length) {
      const parts = [];
      for (const l of el.labels) parts.push(textOf(l)[0]);
      return norm(parts.join(' '));
    }
    if (el.id) {
      const l = doc.querySelector('label[for="' + CSS.escape(el.id) + '"]');
      if (l) return textOf(l)[0];
    }
    return '';
  }

  function firstChildTag(el, tag) {
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) if (c.localName === tag) return c;
    return null;
  }

  // [name, full length when capped else 0]; reads A (the element's attributes).
  function nameOf(el, tag, role, doc) {
    let v = A['aria-labelledby'];
    if (v) { const s = textOfIds(doc, v); if (s) return [cap(s), 0]; }
    v = A['aria-label'];
    if (v && v.trim()) return [cap(norm(v)), 0];
    if (tag === 'input' || tag === 'textarea' || tag === 'select' || tag === 'meter' || tag === 'progress' || tag === 'output') {
      const t = el.type;
      if (tag === 'input' && (t === 'submit' || t === 'reset' || t === 'button')) {
        return [cap(el.value || (t === 'submit' ? 'Submit' : t === 'reset' ? 'Reset' : '')), 0];
      }
      if (tag === 'input' && t === 'image') return [cap(A.alt || el.value || 'Submit'), 0];
      const l = labelFor(el, doc);
      if (l) return [cap(l), 0];
      v = A.title || A.placeholder;
      return [v ? cap(norm(v)) : '', 0];
    }
    if (tag === 'option') return [cap(norm(el.label || el.text || '')), 0];
    if ((tag === 'img' || tag === 'area') && A.alt !== null) return [cap(norm(A.alt)), 0];
    if (tag === 'svg') {
      const t = firstChildTag(el, 'title');
      if (t) return [cap(norm(t.textContent)), 0];
    }
    const own = tag === 'fieldset' ? 'legend' : tag === 'table' ? 'caption' : tag === 'figure' ? 'figcaption' : tag === 'details' ? 'summary' : null;
    if (own) {
      const c = firstChildTag(el, own);
      if (c) return [textOf(c)[0], 0];
    }
    if (tag === 'iframe' || tag === 'frame') {
      v = A.title || el.getAttribute('name');
      if (v) return [cap(norm(v)), 0];
      try { const d = el.contentDocument; if (d && d.title) return [cap(norm(d.title)), 0]; } catch (e) { /* cross-origin */ }
      return ['', 0];
    }
    if (NAME_FROM_CONTENT.has(role)) {
      const r = textOf(el);
      if (r[0]) return r;
    }
    if (A.title) return [cap(norm(A.title)), 0];
    return ['', 0];
  }

  // [states, caps, value, numeric, textLen, role]; reads A.
  function describe(el, tag, role, visible) {
    let st = 0, cp = 0, value = null, num = null, textLen = 0;
    if (!visible) st |= S_HIDDEN; else cp |= C_CLICK;
    const control = tag === 'input' || tag === 'button' || tag === 'select' || tag === 'textarea' || tag === 'option';
    const disabled = A['aria-disabled'] === 'true' || (control && el.matches(':disabled'));
    if (disabled) st |= S_DISABLED;
    if (!disabled && (control || A.tabindex !== null || A.href !== null || A.contenteditable !== null || tag === 'summary') && el.tabIndex >= 0) {
      st |= S_FOCUSABLE; cp |= C_FOCUS;
    }
    if (el === focusedEl) st |= S_FOCUSED;
    if (A['aria-required'] === 'true' || (control && el.required === true)) st |= S_REQUIRED;
    if (A['aria-invalid'] === 'true' || ((tag === 'input' || tag === 'textarea' || tag === 'select') && el.matches(':user-invalid'))) st |= S_INVALID;
    if (A['aria-busy'] === 'true') st |= S_BUSY;
    const ex = A['aria-expanded'];
    if (ex === 'true') { st |= S_EXPANDED; cp |= C_EXPAND; } else if (ex === 'false') { st |= S_COLLAPSED; cp |= C_EXPAND; }
    const ac = A['aria-checked'];
    if (ac === 'true') st |= S_CHECKED; else if (ac === 'mixed') st |= S_MIXED;
    if (ac !== null) cp |= C_TOGGLE;
    const ap = A['aria-pressed'];
    if (ap === 'true') st |= S_PRESSED;
    if (ap !== null) cp |= C_TOGGLE;
    const as = A['aria-selected'];
    if (as !== null) { st |= S_SELECTABLE; cp |= C_SELECT; if (as === 'true') st |= S_SELECTED; }
    if (A['aria-modal'] === 'true') st |= S_MODAL;
    if (A['aria-multiselectable'] === 'true') st |= S_MULTISELECTABLE;
    if (A['aria-readonly'] === 'true') st |= S_READONLY;
    switch (role) {
      case 'link': case 'button': case 'menu-item': case 'tab': case 'tree-item':
        cp |= C_PRESS; break;
      case 'check-box': case 'radio-button': case 'switch': case 'check-menu-item': case 'radio-menu-item':
        cp |= C_PRESS | C_TOGGLE; break;
    }
    if (tag === 'input') {
      const t = el.type;
      if (t === 'checkbox' || t === 'radio') {
        if (el.checked) st |= S_CHECKED;
        if (el.indeterminate) st |= S_MIXED;
      } else if (t === 'range' || t === 'number') {
        const cur = parseFloat(el.value);
        num = [isNaN(cur) ? 0 : cur, parseFloat(el.min || (t === 'range' ? '0' : 'NaN')),
          parseFloat(el.max || (t === 'range' ? '100' : 'NaN')), el.step === 'any' ? 0 : parseFloat(el.step || '1')];
        if (!disabled) cp |= C_SETVALUE;
        if (t === 'number') { value = el.value; if (!disabled && !el.readOnly) cp |= C_SETTEXT | C_TYPETEXT; }
      } else if (t === 'password') {
        st |= S_PASSWORD;
        value = el.value ? '••••' : '';
        if (!el.readOnly && !disabled) { st |= S_EDITABLE; cp |= C_SETTEXT | C_TYPETEXT; }
      } else if (TEXT_INPUTS.has(t)) {
        value = el.value;
        textLen = value.length;
        cp |= C_READTEXT;
        if (el.readOnly) st |= S_READONLY; else if (!disabled) { st |= S_EDITABLE; cp |= C_SETTEXT | C_TYPETEXT; }
      } else if (t === 'color') {
        value = el.value;
      } else if (t === 'file') {
        value = el.files && el.files.length ? el.files[0].name : '';
      }
    } else if (tag === 'textarea') {
      value = el.value;
      textLen = value.length;
      if (value.length > 2000) value = value.slice(0, 2000);
      st |= S_MULTILINE;
      cp |= C_READTEXT;
      if (el.readOnly) st |= S_READONLY; else if (!disabled) { st |= S_EDITABLE; cp |= C_SETTEXT | C_TYPETEXT; }
    } else if (tag === 'select') {
      const o = el.selectedOptions;
      const parts = [];
      for (let i = 0; i < o.length && i < 20; i++) parts.push(norm(o[i].label || o[i].text));
      value = parts.join(', ');
      if (el.multiple) st |= S_MULTISELECTABLE;
      if (!disabled) cp |= C_SELECT;
    } else if (tag === 'option') {
      st |= S_SELECTABLE;
      if (el.selected) st |= S_SELECTED;
      if (!disabled) cp |= C_SELECT;
    } else if (tag === 'details') {
      st |= el.open ? S_EXPANDED : S_COLLAPSED;
      cp |= C_EXPAND;
    } else if (tag === 'summary') {
      const d = el.parentElement;
      if (d && d.localName === 'details') {
        st |= d.open ? S_EXPANDED : S_COLLAPSED;
        cp |= C_EXPAND;
      }
    } else if (tag === 'progress' || tag === 'meter') {
      num = [el.value, tag === 'meter' ? el.min : 0, el.max, 0];
    } else if (tag === 'dialog') {
      if (el.matches(':modal')) st |= S_MODAL;
    }
    // Only an editing host is marked (its descendants are part of its text).
    const ce = A.contenteditable;
    if (ce !== null && ce !== 'false' && el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) {
      st |= S_EDITABLE | S_MULTILINE;
      cp |= C_SETTEXT | C_TYPETEXT | C_READTEXT;
      if (role === 'pane' || role === 'section') role = 'text';
    }
    if (A['aria-valuenow'] !== null && num === null) {
      num = [parseFloat(A['aria-valuenow']), parseFloat(A['aria-valuemin'] || 'NaN'), parseFloat(A['aria-valuemax'] || 'NaN'), 0];
      if (A['aria-valuetext']) value = A['aria-valuetext'];
    }
    if (A.onclick !== null) cp |= C_PRESS;
    return [st, cp, value, num, textLen, role];
  }

  // Whether the element scrolls its own content.
  function scrolls(el, tag) {
    if (el.scrollHeight <= el.clientHeight + 1 && el.scrollWidth <= el.clientWidth + 1) return false;
    if (tag === 'textarea' || tag === 'select') return true;
    const cs = getComputedStyle(el);
    const oy = cs.overflowY, ox = cs.overflowX;
    return oy === 'auto' || oy === 'scroll' || ox === 'auto' || ox === 'scroll';
  }

  let out, trunc, max, focusedEl;
  let full = false;

  function push(row) {
    if (out.length >= max) { full = true; return -1; }
    out.push(row);
    return out.length - 1;
  }

  // Items of a container: text strings, and elements that become nodes with their roles
  // (pushed as element then role), looking through wrappers (phrasing, role=none).
  function items(node, acc) {
    for (let c = node.firstChild; c; c = c.nextSibling) {
      const t = c.nodeType;
      if (t === 3) { acc.push(c.data); continue; }
      if (t !== 1) continue;
      const tag = c.localName;
      if (SKIP.has(tag)) continue;
      const role = roleOf(c, tag);
      if (role === undefined) continue;
      if (role === null) {
        if (tag === 'br') { acc.push(' '); continue; }
        if (tag === 'slot') {
          for (const a of c.assignedNodes({ flatten: true })) {
            if (a.nodeType === 3) acc.push(a.data);
            else if (a.nodeType === 1) { const r = roleOf(a, a.localName); if (r) acc.push(a, r); else if (r === null) items(a, acc); }
          }
          continue;
        }
        items(c.shadowRoot || c, acc);
        continue;
      }
      if (tag === 'label' && namesOnlyItsControl(c)) {
        // The label is the control's name (nameOf reads el.labels): not a line of its own.
        // A label wrapping its control gives way to it; one pointing at it (for=) goes.
        if (c.contains(c.control)) {
          const inner = items(c, []);
          for (let i = 0; i < inner.length; i++) {
            if (typeof inner[i] === 'string') continue;
            acc.push(inner[i], inner[i + 1]);
            i++;
          }
        }
        continue;
      }
      acc.push(c, role);
    }
    return acc;
  }

  // Whether a <label> holds only text (and its own control) and its control takes its name
  // from labels (no aria-label or aria-labelledby of its own).
  function namesOnlyItsControl(l) {
    const ctl = l.control;
    if (!ctl || ctl.hasAttribute('aria-label') || ctl.hasAttribute('aria-labelledby')) return false;
    for (let n = l.firstChild; n; n = n.nextSibling) {
      if (n.nodeType === 1 && !n.contains(ctl)) return false;
    }
    return true;
  }

  // Emits one element (and its subtree). `shown`: an ancestor has a box (display/content-visibility).
  function visit(el, role, parent, ox, oy, shown) {
    if (full) return;
    const tag = el.localName;
    const doc = el.ownerDocument;
    readAttrs(el);
    // One check in the common case; a second only to tell `visibility: hidden` (children may
    // show again) from no box at all (the whole subtree is out).
    const visible = shown && el.checkVisibility({ visibilityProperty: true });
    const hasBox = visible || (shown && el.checkVisibility());
    const [name, nameLen] = nameOf(el, tag, role, doc);
    const d = describe(el, tag, role, visible);
    role = d[5];
    let x = 0, y = 0, w = 0, h = 0;
    if (visible) {
      const r = el.getBoundingClientRect();
      x = Math.round(r.left + ox); y = Math.round(r.top + oy); w = Math.round(r.width); h = Math.round(r.height);
      if (w > 0 && h > 0 && SCROLLERS.has(role) && scrolls(el, tag)) d[1] |= C_SCROLL;
    }
    let desc = '';
    if (A['aria-describedby']) desc = textOfIds(doc, A['aria-describedby']);
    else if (A.title && name !== norm(A.title)) desc = norm(A.title);
    else if (A.href !== null && tag === 'a') desc = A.href;
    const row = [String(idOf(el)), parent, role, tag, name, d[2], d[0], d[1], x, y, w, h,
      el.id, d[4] || nameLen, cap(desc), d[3]];
    const me = push(row);
    if (me < 0) return;
    if (tag === 'select') {
      // Options are children: `select` picks among them by label or value.
      for (const o of el.options) if (!full) visit(o, 'list-item', me, ox, oy, false);
      return;
    }
    if (LEAVES.has(tag)) return;
    if (tag === 'iframe' || tag === 'frame') {
      let cd = null;
      try { cd = el.contentDocument; } catch (e) { cd = null; }
      if (!cd) { trunc.push([me, 'cross-origin frame: its content was not read']); return; }
      const r = el.getBoundingClientRect();
      const body = cd.body || cd.documentElement;
      if (body) children(body, me, r.left + el.clientLeft + ox, r.top + el.clientTop + oy, hasBox, row);
      return;
    }
    children(el.shadowRoot || el, me, ox, oy, hasBox, row);
  }

  // Emits the children of a node, turning loose text into label nodes unless the whole
  // content is one line of text (then it is the node's name).
  function children(el, me, ox, oy, shown, row) {
    const its = items(el, []);
    if (its.length === 0) return;
    let inlineOnly = true, anyText = false, innerText = false;
    for (let i = 0; i < its.length; i++) {
      const it = its[i];
      if (typeof it === 'string') { if (!anyText && /\S/.test(it)) anyText = true; continue; }
      const r = its[++i];
      if (!INLINE_ROLES.has(r)) inlineOnly = false;
      else if (!innerText && /\S/.test(it.textContent)) innerText = true;
    }
    const role = row[2];
    // A list item or cell holding just a link reads best named by it (list-item "push").
    if (!anyText && innerText && inlineOnly && !row[4] && role !== 'pane' && role !== 'section' && role !== 'group' && role !== 'form') {
      const r = textOf(el);
      row[4] = r[0];
      if (r[1]) row[13] = r[1];
    }
    if (anyText && inlineOnly) {
      if (!row[4]) {
        const r = textOf(el);
        row[4] = r[0];
        if (r[1]) row[13] = r[1];
        if (role === 'pane' || role === 'section') row[2] = its.length === its.filter((x) => typeof x === 'string').length ? 'label' : 'paragraph';
      }
      for (let i = 0; i < its.length; i++) if (typeof its[i] !== 'string') { visit(its[i], its[i + 1], me, ox, oy, shown); i++; }
      return;
    }
    const fromContent = NAME_FROM_CONTENT.has(role) && row[4];
    let run = '', k = 0;
    const flush = () => {
      const s = norm(run);
      run = '';
      if (!s || fromContent) return;
      k++;
      push([row[0] + '.' + k, me, 'label', '#text', cap(s), null, row[6] & S_HIDDEN, 0,
        row[8], row[9], row[10], row[11], '', s.length > NAME_CAP ? s.length : 0, '', null]);
    };
    for (let i = 0; i < its.length; i++) {
      if (full) return;
      const it = its[i];
      if (typeof it === 'string') { run += it; continue; }
      if (run) flush();
      visit(it, its[++i], me, ox, oy, shown);
    }
    if (run) flush();
  }

  function deepFocus(doc) {
    let a = doc.activeElement;
    for (;;) {
      if (a && a.shadowRoot && a.shadowRoot.activeElement) { a = a.shadowRoot.activeElement; continue; }
      if (a && (a.localName === 'iframe' || a.localName === 'frame')) {
        let cd = null;
        try { cd = a.contentDocument; } catch (e) { cd = null; }
        if (cd && cd.activeElement) { a = cd.activeElement; continue; }
      }
      return a;
    }
  }

  // The offset of an element's frame in the top viewport.
  function frameOffset(el) {
    let ox = 0, oy = 0;
    let w = el.ownerDocument.defaultView;
    while (w && w.frameElement) {
      const f = w.frameElement;
      const r = f.getBoundingClientRect();
      ox += r.left + f.clientLeft;
      oy += r.top + f.clientTop;
      w = f.ownerDocument.defaultView;
    }
    return [ox, oy];
  }
  U.frameOffset = frameOffset;
  U.deepFocus = () => deepFocus(document);

  return function walk(opts) {
    const t0 = performance.now();
    out = [];
    trunc = [];
    full = false;
    max = opts.max || 20000;
    focusedEl = deepFocus(document);
    if (focusedEl && focusedEl.localName === 'body') focusedEl = null;
    const start = opts.root ? U.get(opts.root) : null;
    if (opts.root && !start) return JSON.stringify({ gone: true });
    if (start) {
      const [ox, oy] = frameOffset(start);
      let shown = true;
      for (let p = start.parentElement; p; p = p.parentElement) if (!p.checkVisibility()) { shown = false; break; }
      visit(start, roleOf(start, start.localName) || 'pane', -1, ox, oy, shown);
    } else {
      const de = document.documentElement;
      const title = norm(document.title || '');
      const row = [String(idOf(de)), -1, 'document', '#document', title, null,
        (focusedEl ? 0 : S_FOCUSED), C_SCROLL | C_CLICK, 0, 0, innerWidth, innerHeight, '', 0, location.href, null];
      push(row);
      children(document.body || de, 0, 0, 0, true, row);
      row[2] = 'document';
      row[4] = title;
    }
    if (full) trunc.push([0, 'cap']);
    U.lastCount = out.length;
    prune();
    const json = JSON.stringify({
      nonce: U.nonce, url: location.href, title: document.title,
      vp: [innerWidth, innerHeight, scrollX, scrollY, devicePixelRatio, screenX, screenY, outerWidth, outerHeight],
      nodes: out, trunc: trunc,
    });
    // The time includes serializing; appended so the string is built once.
    return json.slice(0, -1) + ',"ms":' + (performance.now() - t0).toFixed(1) + '}';
  };
})()
