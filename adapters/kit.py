"""What an adapter author needs beyond the public ``workloadbuilder`` API, in one place.

The adapters bundled with this package import only ``workloadbuilder``, this
module and each other; an adapter written outside the package should do the
same. Everything here is stable API for adapter authors:

- field-error constructors with Kubernetes' ``field`` package semantics
  (``invalid``, ``required``, ``forbidden``, ``duplicate``, ``too_many``,
  ``type_invalid``, ``unknown_field``) and ``OMIT_VALUE`` for errors that
  print no value;
- ``extend_path``, ``index_path``, ``key_path``, ``field_path_of`` and ``elements_of`` to turn an adapter's
  own locations into ``FieldPath``s;
- strict decoding of building blocks (``decode``, ``errors_at``, ``as_model``,
  and ``given_blocks``: each block a ``WorkloadInput`` sets, with its path,
  its model and its decoding errors),
  ``is_int`` (a JSON integer: an ``int`` that is not a ``bool``)
  and ``to_json_dict`` to turn a client model back into its JSON form;
- the API server's limits (``MAX_TEMPLATES``, ``MAX_RESOURCE_CLAIMS``), so
  an adapter reports an oversized list as the API server would;
- Go's ``%q`` (``go_quote``), so messages read as the Go controllers print them;
- the DNS-1123 name checks the controllers apply to their own names;
- the declarative-validation engine the building blocks' rules run on, for an
  API's own tags on the field that embeds them: ``Op``, ``check_field``,
  ``nested``, the tags ``IMMUTABLE``, ``NO_SET_UNSET``, ``max_items`` and
  ``unique_names``, and ``canonical`` (a JSON value in Go's shape);
- ``TemplateIndex`` (templates of a compiled Workload by name), ``walk`` and
  its ``TemplateNode`` records (every template of a tree, with its path and depth),
  ``parse_group`` (the API group of an ``apiVersion``) and
  ``leaf_fields``/``composite_fields`` (which building blocks a leaf or a
  composite item was given);
- ``read_field`` and ``read_count``: a nested field of the user's object
  with the type it must have, or a field error at its path
  (``must be of type integer``, ``must be less than or equal to``), and the
  bounds of ``workloadbuilder.limits`` (``INT32_MAX``, ``MAX_PODS``...).
"""

from workloadbuilder._internal.decode import as_model, decode, errors_at, is_int, to_json_dict, unknown_field
from workloadbuilder._internal.fields_read import read_count, read_field, type_error
from workloadbuilder._internal.gofmt import go_quote
from workloadbuilder._internal.kinds import MAX_RESOURCE_CLAIMS, MAX_TEMPLATES
from workloadbuilder._internal.objpath import elements_of, field_path_of
from workloadbuilder._internal.walk import TemplateNode, walk
from workloadbuilder.compile import parse_group
from workloadbuilder.field import (
    OMIT_VALUE,
    ErrorType,
    duplicate,
    extend_path,
    forbidden,
    index_path,
    invalid,
    key_path,
    required,
    too_many,
    type_invalid,
)
from workloadbuilder.limits import INT32_MAX, MAX_INDEXED_COMPLETIONS, MAX_LWS_REPLICAS, MAX_PODS, MAX_RUNTIME_GROUPS
from workloadbuilder.mapping import composite_fields, leaf_fields
from workloadbuilder.podgroup import TemplateIndex
from workloadbuilder.validation.dv import IMMUTABLE, NO_SET_UNSET, Op, check_field, max_items, nested, unique_names
from workloadbuilder.validation.formats import (
    is_dns1123_label,
    is_dns1123_subdomain,
    long_name_errors,
    short_name_errors,
)
from workloadbuilder.validation.gotypes import canonical
from workloadbuilder.validation.structure import GivenBlock, given_blocks

__all__ = [
    "IMMUTABLE",
    "INT32_MAX",
    "MAX_INDEXED_COMPLETIONS",
    "MAX_LWS_REPLICAS",
    "MAX_PODS",
    "MAX_RESOURCE_CLAIMS",
    "MAX_RUNTIME_GROUPS",
    "MAX_TEMPLATES",
    "NO_SET_UNSET",
    "OMIT_VALUE",
    "ErrorType",
    "GivenBlock",
    "Op",
    "TemplateIndex",
    "TemplateNode",
    "as_model",
    "canonical",
    "check_field",
    "composite_fields",
    "decode",
    "duplicate",
    "elements_of",
    "errors_at",
    "extend_path",
    "field_path_of",
    "forbidden",
    "given_blocks",
    "go_quote",
    "index_path",
    "invalid",
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "is_int",
    "key_path",
    "leaf_fields",
    "long_name_errors",
    "max_items",
    "nested",
    "parse_group",
    "read_count",
    "read_field",
    "required",
    "short_name_errors",
    "to_json_dict",
    "too_many",
    "type_error",
    "type_invalid",
    "unique_names",
    "unknown_field",
    "walk",
]
