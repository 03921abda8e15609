#!/usr/bin/env python3
"""Reads an office document and prints it as JSON, for the task checkers (crates/tasks/src/checkers.rs).

  spreadsheets (.xlsx, .ods): {"sheets": [{"name", "cells": {"A1": {"value", "formula"}}}]}
  documents (.docx, .odt):    {"paragraphs": [{"text", "style", "runs": [{"text", "bold", "italic", "underline"}]}]}
  presentations (.pptx, .odp): {"slides": [{"title", "texts": [...]}]}

Libraries: openpyxl, python-docx, python-pptx, odfpy (scripts/install-deps.sh installs them).
"""
import json
import re
import sys


def col_name(n):
    s = ""
    while n:
        n, r = divmod(n - 1, 26)
        s = chr(65 + r) + s
    return s


def xlsx(path):
    import openpyxl
    formulas = openpyxl.load_workbook(path, data_only=False)
    values = openpyxl.load_workbook(path, data_only=True)
    sheets = []
    for ws in formulas.worksheets:
        wv = values[ws.title]
        cells = {}
        for row in ws.iter_rows():
            for c in row:
                if c.value is None:
                    continue
                f = c.value if isinstance(c.value, str) and c.value.startswith("=") else None
                # A formula's value is the one cached by the app that saved the file.
                v = wv[c.coordinate].value if f else c.value
                cells[c.coordinate] = {"value": v, "formula": f}
        sheets.append({"name": ws.title, "cells": cells})
    return {"sheets": sheets}


def ods_formula(f):
    # of:=SUM([.A1:.A3]) -> =SUM(A1:A3); [$Sheet2.B1] -> Sheet2!B1
    f = f[3:] if f.startswith("of:") else f
    f = re.sub(r"\[\$?([^\].]*)\.([^\]]*)\]", lambda m: (m.group(1) + "!" if m.group(1) else "") + m.group(2).replace(".", ""), f)
    return f


def ods(path):
    from odf.opendocument import load
    from odf.table import Table, TableRow, TableCell, CoveredTableCell
    from odf import teletype
    doc = load(path)
    sheets = []
    for t in doc.spreadsheet.getElementsByType(Table):
        cells = {}
        r = 0
        for row in t.getElementsByType(TableRow):
            rep = int(row.getAttribute("numberrowsrepeated") or 1)
            for _ in range(min(rep, 1000)):
                r += 1
                c = 0
                for cell in row.childNodes:
                    if cell.qname[1] not in ("table-cell", "covered-table-cell"):
                        continue
                    crep = int(cell.getAttribute("numbercolumnsrepeated") or 1)
                    for _ in range(min(crep, 200)):
                        c += 1
                        vt = cell.getAttribute("valuetype")
                        text = teletype.extractText(cell)
                        formula = cell.getAttribute("formula")
                        if not vt and not text and not formula:
                            continue
                        if vt in ("float", "percentage", "currency"):
                            v = float(cell.getAttribute("value"))
                            v = int(v) if v.is_integer() else v
                        else:
                            v = text
                        cells[f"{col_name(c)}{r}"] = {"value": v, "formula": ods_formula(formula) if formula else None}
        sheets.append({"name": t.getAttribute("name"), "cells": cells})
    return {"sheets": sheets}


def docx(path):
    import docx as d
    doc = d.Document(path)
    paras = []
    for p in doc.paragraphs:
        runs = []
        for r in p.runs:
            style_font = p.style.font if p.style is not None else None
            def eff(attr):
                v = getattr(r, attr)
                if v is None and style_font is not None:
                    v = getattr(style_font, attr)
                return bool(v)
            runs.append({"text": r.text, "bold": eff("bold"), "italic": eff("italic"), "underline": eff("underline")})
        paras.append({"text": p.text, "style": p.style.name if p.style is not None else None, "runs": runs})
    for t in doc.tables:
        for row in t.rows:
            for cell in row.cells:
                for p in cell.paragraphs:
                    paras.append({"text": p.text, "style": "table", "runs": []})
    return {"paragraphs": paras}


def odt_styles(doc):
    """Style name -> {bold, italic, underline}, from automatic and common styles."""
    from odf.style import Style, TextProperties
    out = {}
    for container in (doc.automaticstyles, doc.styles):
        for s in container.getElementsByType(Style):
            props = {}
            for tp in s.getElementsByType(TextProperties):
                if tp.getAttribute("fontweight") == "bold":
                    props["bold"] = True
                if tp.getAttribute("fontstyle") == "italic":
                    props["italic"] = True
                u = tp.getAttribute("textunderlinestyle")
                if u and u != "none":
                    props["underline"] = True
            parent = s.getAttribute("parentstylename")
            out[s.getAttribute("name")] = (props, parent)
    def resolve(name, seen=()):
        if not name or name not in out or name in seen:
            return {}
        props, parent = out[name]
        merged = dict(resolve(parent, seen + (name,)))
        merged.update(props)
        return merged
    return resolve


def odt(path):
    from odf.opendocument import load
    from odf import teletype
    from odf.text import P, H, Span
    doc = load(path)
    resolve = odt_styles(doc)
    paras = []
    for p in doc.text.getElementsByType(P) + doc.text.getElementsByType(H):
        pstyle = resolve(p.getAttribute("stylename"))
        runs = []
        def walk(node, inherited):
            for ch in node.childNodes:
                if ch.nodeType == ch.TEXT_NODE:
                    runs.append({"text": str(ch.data), **{k: inherited.get(k, False) for k in ("bold", "italic", "underline")}})
                elif ch.qname[1] == "span":
                    st = dict(inherited)
                    st.update(resolve(ch.getAttribute("stylename")))
                    walk(ch, st)
                elif ch.qname[1] == "s":
                    runs.append({"text": " ", **{k: inherited.get(k, False) for k in ("bold", "italic", "underline")}})
                elif ch.nodeType == ch.ELEMENT_NODE:
                    walk(ch, inherited)
        walk(p, pstyle)
        paras.append({"text": teletype.extractText(p), "style": p.getAttribute("stylename"), "runs": runs})
    return {"paragraphs": paras}


def pptx(path):
    from pptx import Presentation
    prs = Presentation(path)
    slides = []
    for s in prs.slides:
        title = s.shapes.title.text if s.shapes.title is not None else ""
        texts = [sh.text_frame.text for sh in s.shapes if sh.has_text_frame]
        slides.append({"title": title, "texts": texts})
    return {"slides": slides}


def odp(path):
    from odf.opendocument import load
    from odf.draw import Page, Frame
    from odf import teletype
    doc = load(path)
    slides = []
    for page in doc.presentation.getElementsByType(Page):
        title, texts = "", []
        for fr in page.getElementsByType(Frame):
            t = teletype.extractText(fr)
            texts.append(t)
            if fr.getAttribute("class") == "title" and not title:
                title = t
        slides.append({"title": title, "texts": texts})
    return {"slides": slides}


READERS = {".xlsx": xlsx, ".ods": ods, ".docx": docx, ".odt": odt, ".pptx": pptx, ".odp": odp}


def main():
    path = sys.argv[1]
    ext = path[path.rfind("."):].lower()
    if ext not in READERS:
        sys.exit(f"read_doc: unsupported file type {ext}")
    json.dump(READERS[ext](path), sys.stdout, default=str)


if __name__ == "__main__":
    main()
