"""Readable text of a node's LaTeX (:func:`latex_text`): what a reader of the drawing reads,
and the symbol table (:data:`SYMBOLS`) the twin writers also use to spell text back."""

from __future__ import annotations

import re

from diagramforge.formats.tikz.graph.lexer import _unbrace

# -- LaTeX text -------------------------------------------------------------------------

SYMBOLS = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ϵ", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ",
    "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ",
    "tau": "τ", "upsilon": "υ", "phi": "ϕ", "varphi": "φ", "chi": "χ", "psi": "ψ",
    "omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ",
    "Pi": "Π", "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω", "times": "×",
    "cdot": "·", "ldots": "…", "dots": "…", "cdots": "⋯", "to": "→", "rightarrow": "→",
    "leftarrow": "←", "Rightarrow": "⇒", "Leftarrow": "⇐", "leftrightarrow": "↔", "pm": "±",
    "leq": "≤", "geq": "≥", "le": "≤", "ge": "≥", "neq": "≠", "infty": "∞", "in": "∈",
    "sum": "∑", "prod": "∏", "int": "∫", "partial": "∂", "nabla": "∇", "approx": "≈",
    "sim": "∼", "cup": "∪", "cap": "∩", "emptyset": "∅", "forall": "∀", "exists": "∃",
    "neg": "¬", "wedge": "∧", "vee": "∨", "lor": "∨", "land": "∧", "lnot": "¬",
    "mapsto": "↦", "subset": "⊂", "subseteq": "⊆", "mid": "∣", "ell": "ℓ", "hbar": "ℏ",
    "top": "⊤", "bot": "⊥", "vdots": "⋮", "ddots": "⋱", "star": "⋆", "ast": "∗",
    "oplus": "⊕", "otimes": "⊗", "circ": "∘",
    "textbackslash": "\\", "&": "&", "%": "%", "_": "_", "#": "#", "$": "$", "{": "{",
    "}": "}", "textendash": "–", "textemdash": "—", "S": "§", "ss": "ß", "euro": "€",
}
SYMBOLS.update({"textasciicircum": "^", "textasciitilde": "~", "^": "^", "~": "~",
                "textminus": "\u2212"})
"""Control words (and escaped characters) → the character they typeset; the TikZ twin
writer (``formats/tikz/twin.py``) maps characters back to them."""
_ESCAPED = {c: chr(0xE000 + k) for k, c in enumerate("_{}^~&$%#\\")}
"""Characters that are markup when bare and text when escaped (``\\_``, ``\\{``…), held
as private-use marks while the markup is stripped."""
_DROP_WITH_ARG = ("color", "label", "nodepart", "pgfuseimage", "pgfimage", "usebox", "vspace",
                  "hspace", "includegraphics", "ref", "cite", "setlength", "rule", "raisebox",
                  "tikz", "phantom", "hphantom", "vphantom", "pgfmathparse",
                  "pgfmathprintnumber")


def latex_text(s: str) -> str:
    """Readable text of a node's LaTeX: commands dropped, arguments kept, ``\\\\`` a line."""
    # a fraction reads "2/10" (not "210"): numerator and denominator as groups or tokens
    frac = r"\\[dt]?frac\s*(\{[^{}]*\}|\\?[A-Za-z0-9])\s*(\{[^{}]*\}|\\?[A-Za-z0-9])"
    s = re.sub(frac, lambda m: f"{_unbrace(m.group(1))}/{_unbrace(m.group(2))}", s)
    s = re.sub(r"\\\\(\s*\[[^\]]*\])?", "\n", s)
    s = re.sub(r"\\(?:newline|linebreak|par)\b", "\n", s)
    s = re.sub(r"\\textcolor\s*\{[^{}]*\}", "", s)
    s = re.sub(r"\\(?:" + "|".join(_DROP_WITH_ARG) + r")\*?\s*(\[[^\]]*\])?\s*\{[^{}]*\}",
               "", s)
    s = re.sub(r"\\(?:begin|end)\s*\{[^{}]*\}(\{[^{}]*\}|\[[^\]]*\])*", " ", s)

    def cs(m: re.Match) -> str:
        name = m.group(1)
        if name in SYMBOLS:
            # an escaped character is text: kept from the markup clean-up below
            return _ESCAPED.get(SYMBOLS[name], SYMBOLS[name])
        return " " if name in ("quad", "qquad", ",", ";", ":", "!", " ") else ""

    s = re.sub(r"\\([A-Za-z]+|.)\s*", cs, s)
    s = s.replace("~", " ").replace("$", "").replace("{", "").replace("}", "")
    s = s.replace("^", "").replace("_", "").replace("&", " ")
    for char, mark in _ESCAPED.items():
        s = s.replace(mark, char)
    lines = [" ".join(line.split()) for line in s.split("\n")]
    return "\n".join(line for line in lines if line)
