"""Reports for people: text tables on a terminal (terminal.py), the clauses and the rules
comparison (report.py), HTML pages (html.py, html_report.py), simulation summaries
(simulate_text.py) and the findings (findings_report.py)."""
