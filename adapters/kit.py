"""What an adapter author needs beyond the public ``workloadbuilder`` API, in one place.

The adapters bundled with this package import only ``workloadbuilder``, this
module and each other; an adapter written outside the package should do the
same. Everything here is stable API for adapter authors:

- field-error constructors with Kubernetes' ``field`` package semantics
  (``invalid``, ``required``, ``forbidden``, ``duplicate``, ``too_many``,
  ``type_invalid``, ``unknown_field``) and ``OMIT_VALUE`` for errors that
  print no value;
- ``extend_path``, ``field_path_of`` and ``elements_of`` to turn an adapter's
  own locations into ``FieldPath``s;
- strict decoding of building blocks (``decode``, ``errors_at``, ``as_model``),
  ``is_int`` (a JSON integer: an ``int`` that is not a ``bool``)
  and ``to_json_dict`` to turn a client model back into its JSON form;
- the API server's limits (``MAX_TEMPLATES``, ``MAX_RESOURCE_CLAIMS``), so
  an adapter reports an oversized list as the API server would;
- Go's ``%q`` (``go_quote``), so messages read as the Go controllers print them;
- the DNS-1123 name checks the controllers apply to their own names;
- ``TemplateIndex`` (templates of a compiled Workload by name), ``walk`` and
  its ``TemplateNode`` records (every template of a tree, with its path and depth),
  ``parse_group`` (the API group of an ``apiVersion``) and
  ``leaf_fields``/``composite_fields`` (which building blocks a leaf or a
  composite item was given).
"""

from workloadbuilder.compile import parse_group
from workloadbuilder.decode import as_model, decode, errors_at, is_int, to_json_dict, unknown_field
from workloadbuilder.field import (
    OMIT_VALUE,
    ErrorType,
    duplicate,
    extend_path,
    forbidden,
    invalid,
    required,
    too_many,
    type_invalid,
)
from workloadbuilder.gofmt import go_quote
from workloadbuilder.groups import TemplateIndex
from workloadbuilder.kinds import MAX_RESOURCE_CLAIMS, MAX_TEMPLATES
from workloadbuilder.mapping import composite_fields, leaf_fields
from workloadbuilder.objpath import elements_of, field_path_of
from workloadbuilder.validation.formats import (
    is_dns1123_label,
    is_dns1123_subdomain,
    long_name_errors,
    short_name_errors,
)
from workloadbuilder.walk import TemplateNode, walk

__all__ = [
    "MAX_RESOURCE_CLAIMS",
    "MAX_TEMPLATES",
    "OMIT_VALUE",
    "ErrorType",
    "TemplateIndex",
    "TemplateNode",
    "as_model",
    "composite_fields",
    "decode",
    "duplicate",
    "elements_of",
    "errors_at",
    "extend_path",
    "field_path_of",
    "forbidden",
    "go_quote",
    "invalid",
    "is_int",
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "leaf_fields",
    "long_name_errors",
    "parse_group",
    "required",
    "short_name_errors",
    "to_json_dict",
    "too_many",
    "type_invalid",
    "unknown_field",
    "walk",
]
