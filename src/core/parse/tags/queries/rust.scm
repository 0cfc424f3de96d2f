; Rust tags. Patterns for the same node are ordered most specific first: the engine keeps the
; first pattern's capture when several claim one name.

; ---- imports (`mod x;` pulls in a file, so it is an import as well as a module)
(use_declaration) @import
(extern_crate_declaration) @import
(mod_item !body) @import

; ---- items
(function_item
  name: (identifier) @name
  body: (block) @body) @definition.function
; Trait methods without a default body and `extern` functions.
(function_signature_item name: (identifier) @name) @definition.function

(struct_item
  name: (type_identifier) @name
  body: (_)? @body) @definition.struct
(union_item
  name: (type_identifier) @name
  body: (_) @body) @definition.struct
(enum_item
  name: (type_identifier) @name
  body: (enum_variant_list) @body) @definition.enum
(enum_variant name: (identifier) @name) @definition.constant
(field_declaration name: (field_identifier) @name) @definition.field

(trait_item
  name: (type_identifier) @name
  body: (declaration_list) @body) @definition.trait
(type_item name: (type_identifier) @name) @definition.type
(associated_type name: (type_identifier) @name) @definition.type
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.variable

(mod_item
  name: (identifier) @name
  body: (declaration_list)? @body) @definition.module
(macro_definition name: (identifier) @name) @definition.macro

; `impl [Trait for] Type { … }` names a scope after the type, so its functions are `Type.method`.
(impl_item
  type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
    (scoped_type_identifier name: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
    (reference_type type: (type_identifier) @name)
    (reference_type type: (generic_type type: (type_identifier) @name))
  ]) @container

; ---- inheritance: implemented traits and supertraits
(impl_item
  trait: [
    (type_identifier) @reference.inherit
    (generic_type type: (type_identifier) @reference.inherit)
    (scoped_type_identifier path: (_) @receiver name: (type_identifier) @reference.inherit)
    (generic_type type: (scoped_type_identifier path: (_) @receiver name: (type_identifier) @reference.inherit))
  ])
(trait_item
  bounds: (trait_bounds [
    (type_identifier) @reference.inherit
    (generic_type type: (type_identifier) @reference.inherit)
    (scoped_type_identifier path: (_) @receiver name: (type_identifier) @reference.inherit)
  ]))

; ---- names bound inside functions and generic items
(type_parameter name: (type_identifier) @local.type)
(parameter pattern: (identifier) @local)
(closure_parameters (identifier) @local)
(let_declaration pattern: (identifier) @local)
(let_condition pattern: (identifier) @local)
(for_expression pattern: (identifier) @local)
(match_pattern (identifier) @local)
(mut_pattern (identifier) @local)
(ref_pattern (identifier) @local)
(reference_pattern (identifier) @local)
(tuple_pattern (identifier) @local)
; Also catches the variant path of `Some(x)`: a prelude name, harmless to treat as bound.
(tuple_struct_pattern (identifier) @local)
(slice_pattern (identifier) @local)
(or_pattern (identifier) @local)
(captured_pattern (identifier) @local)
(field_pattern name: (shorthand_field_identifier) @local)
(field_pattern pattern: (identifier) @local)
; Lifetimes are not values; aliases bind names like locals do.
(lifetime (identifier) @local)
(use_as_clause alias: (identifier) @local)
(extern_crate_declaration alias: (identifier) @local)

; ---- references
(call_expression function: (identifier) @reference.call)
(call_expression
  function: (field_expression
    value: (_) @receiver
    field: (field_identifier) @reference.call))
(call_expression
  function: (scoped_identifier
    path: (_) @receiver
    name: (identifier) @reference.call))
(call_expression
  function: (generic_function function: [
    (identifier) @reference.call
    (field_expression value: (_) @receiver field: (field_identifier) @reference.call)
    (scoped_identifier path: (_) @receiver name: (identifier) @reference.call)
  ]))
(macro_invocation macro: (identifier) @reference.call)
(macro_invocation macro: (scoped_identifier path: (_) @receiver name: (identifier) @reference.call))

; `Self::X` is resolved through its receiver; a bare `Self` names no symbol.
(scoped_type_identifier
  path: (_) @receiver
  name: (type_identifier) @reference.type)
((type_identifier) @reference.type
  (#not-eq? @reference.type "Self"))

(field_expression
  value: (_) @receiver
  field: (field_identifier) @reference.reference)
(scoped_identifier
  path: (_) @receiver
  name: (identifier) @reference.reference)
((identifier) @reference.reference
  (#not-eq? @reference.reference "Self"))
