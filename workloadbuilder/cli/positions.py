"""Where a field is in a manifest's text: line and column from the YAML node tree, for GitHub annotations.

Loading a manifest keeps only its data; ``Positions`` composes the same
text again with the same bounded reader (``textread.documents``: YAML's node
tree carries each node's start mark) and answers,
for a document and a field path, the line and column of the deepest part
of the path that exists in the text: an unknown or invalid field points at
its own key, a missing one at the mapping that should hold it.
"""

from __future__ import annotations

from collections.abc import Sequence

import yaml

from workloadbuilder._internal.textread import TextError, documents

__all__ = ["Positions"]


class Positions:
    """The node trees of one file's documents, composed on first use.

    Args:
        text: the file's text (YAML or JSON).
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self._documents: list[yaml.Node | None] | None = None

    def find(self, document: int, loc: Sequence[str | int]) -> tuple[int, int] | None:
        """``(line, column)``, both from 1, of the field ``loc`` of document ``document`` (from 1).

        Returns ``None`` when the text does not compose (the error is then
        about the file as a whole) or has no such document.
        """
        documents = self._composed()
        node = documents[document - 1] if 1 <= document <= len(documents) else None
        if node is None:
            return None
        mark = node.start_mark
        for part in loc:
            found = _child(node, part)
            if found is None:
                break
            mark, node = found
        return mark.line + 1, mark.column + 1

    def _composed(self) -> list[yaml.Node | None]:
        if self._documents is None:
            try:
                self._documents = [node for _, node in documents(self.text)]
            except TextError:
                self._documents = []
        return self._documents


def _child(node: yaml.Node, part: str | int) -> tuple[yaml.Mark, yaml.Node] | None:
    """The mark that names ``part`` of ``node`` (a key's own mark, an item's start) and the node it leads to."""
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.value == str(part):
                return key.start_mark, value
    elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
        item = node.value[part]
        return item.start_mark, item
    return None
