#!/usr/bin/env python3
"""Writes the office fixtures of the task suite (run once; the outputs are committed):
sales.xlsx, grades.xlsx, report.docx, memo.docx, pitch.pptx."""
import os

import docx
import openpyxl
from pptx import Presentation

HERE = os.path.dirname(os.path.abspath(__file__))


def sales():
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sales"
    ws.append(["Item", "Qty", "Price", "Total"])
    for row in [("Pens", 10, 1.5), ("Paper", 4, 6.25), ("Ink", 2, 19.9)]:
        ws.append(list(row))
    wb.save(os.path.join(HERE, "sales.xlsx"))


def grades():
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Grades"
    ws.append(["Student", "Score"])
    for row in [("Noether", 91), ("Curie", 78), ("Hypatia", 85), ("Lovelace", 96), ("Franklin", 88)]:
        ws.append(list(row))
    wb.save(os.path.join(HERE, "grades.xlsx"))


def report():
    d = docx.Document()
    d.add_heading("Quarterly report", 1)
    d.add_paragraph("Revenue grew in every region this quarter.")
    d.add_paragraph("Costs were flat, and the old colour scheme of the office was kept.")
    d.save(os.path.join(HERE, "report.docx"))


def memo():
    d = docx.Document()
    d.add_paragraph("Memo")
    d.add_paragraph("The meeting moves to Thursday at 10:00.")
    d.add_paragraph("Please bring the budget figures.")
    d.save(os.path.join(HERE, "memo.docx"))


def pitch():
    p = Presentation()
    for title, body in [("Our product", "Fast and friendly"), ("The market", "Everyone who types")]:
        s = p.slides.add_slide(p.slide_layouts[1])
        s.shapes.title.text = title
        s.placeholders[1].text = body
    p.save(os.path.join(HERE, "pitch.pptx"))


if __name__ == "__main__":
    for make in (sales, grades, report, memo, pitch):
        make()
