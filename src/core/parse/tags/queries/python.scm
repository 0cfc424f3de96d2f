; Python tags. Patterns claiming the same name are ordered most specific first: the engine keeps
; the first pattern's capture when several claim one name or one reference.

; ---- imports
(import_statement) @import
(import_from_statement) @import
(future_import_statement) @import

; ---- classes and functions. A decorated definition spans its decorators, but its signature
; and its scope start at `def`/`class`: decorators are evaluated where the definition stands, so
; in `@ship.command() def move(ship)` the decorator's `ship` is not the parameter. The engine
; turns functions directly inside classes into methods.
(decorated_definition
  definition: (class_definition
    name: (identifier) @name
    body: (block) @body) @sig @inside) @definition.class
(decorated_definition
  definition: (function_definition
    name: (identifier) @name
    body: (block) @body) @sig @inside) @definition.function

(class_definition
  name: (identifier) @name
  body: (block) @body) @definition.class
(function_definition
  name: (identifier) @name
  body: (block) @body) @definition.function

(module (type_alias_statement left: (type (identifier) @name)) @definition.type)

; ---- module-level names, UPPER_CASE ones constants by convention; also under `if`/`try`. Inside
; a function the engine keeps them as locals. Class attributes come first, as fields.
(class_definition body: (block (expression_statement (assignment left: (identifier) @name) @definition.field)))
((assignment left: (identifier) @name) @definition.constant
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))
(assignment left: (identifier) @name) @definition.variable
(assignment left: [
  (pattern_list (identifier) @name @definition.variable)
  (tuple_pattern (identifier) @name @definition.variable)
])

; ---- names bound inside functions
(parameters (identifier) @local)
(lambda_parameters (identifier) @local)
(typed_parameter . (identifier) @local)
(default_parameter name: (identifier) @local)
(typed_default_parameter name: (identifier) @local)
(list_splat_pattern (identifier) @local)
(dictionary_splat_pattern (identifier) @local)
; PEP 695 type parameters (`def f[T]`), not the subscript of a generic type.
(function_definition type_parameters: (type_parameter (type (identifier) @local.type)))
(class_definition type_parameters: (type_parameter (type (identifier) @local.type)))
(for_statement left: [
  (identifier) @local
  (pattern_list (identifier) @local)
  (tuple_pattern (identifier) @local)
])
(for_in_clause left: [
  (identifier) @local
  (pattern_list (identifier) @local)
  (tuple_pattern (identifier) @local)
])
(as_pattern_target (identifier) @local)
(named_expression name: (identifier) @local)

; ---- references
(class_definition
  superclasses: (argument_list [
    (identifier) @reference.inherit
    (attribute object: (_) @receiver attribute: (identifier) @reference.inherit)
    (subscript value: [
      (identifier) @reference.inherit
      (attribute object: (_) @receiver attribute: (identifier) @reference.inherit)
    ])
  ]))

(call function: (identifier) @reference.call)
(call function: (attribute object: (_) @receiver attribute: (identifier) @reference.call))

[
  (type (identifier) @reference.type)
  (generic_type (identifier) @reference.type)
]
(type (attribute object: (_) @receiver attribute: (identifier) @reference.type))

(attribute object: (_) @receiver attribute: (identifier) @reference.reference)

; Bare names read as values. Listed by parent because an identifier is also a keyword argument's
; name, an import's path or alias, or a `global` declaration, none of which reads a symbol.
[
  (argument_list (identifier) @reference.reference)
  (as_pattern (identifier) @reference.reference)
  (assert_statement (identifier) @reference.reference)
  (assignment right: (identifier) @reference.reference)
  (attribute object: (identifier) @reference.reference)
  (augmented_assignment right: (identifier) @reference.reference)
  (await (identifier) @reference.reference)
  (binary_operator (identifier) @reference.reference)
  (boolean_operator (identifier) @reference.reference)
  (comparison_operator (identifier) @reference.reference)
  (conditional_expression (identifier) @reference.reference)
  (decorator (identifier) @reference.reference)
  (default_parameter value: (identifier) @reference.reference)
  (delete_statement (identifier) @reference.reference)
  (dictionary_splat (identifier) @reference.reference)
  (elif_clause condition: (identifier) @reference.reference)
  (except_clause value: (identifier) @reference.reference)
  (expression_list (identifier) @reference.reference)
  (expression_statement (identifier) @reference.reference)
  (for_in_clause right: (identifier) @reference.reference)
  (for_statement right: (identifier) @reference.reference)
  (format_expression expression: (identifier) @reference.reference)
  (generator_expression body: (identifier) @reference.reference)
  (if_clause (identifier) @reference.reference)
  (if_statement condition: (identifier) @reference.reference)
  (interpolation expression: (identifier) @reference.reference)
  (keyword_argument value: (identifier) @reference.reference)
  (lambda body: (identifier) @reference.reference)
  (list (identifier) @reference.reference)
  (list_comprehension body: (identifier) @reference.reference)
  (list_splat (identifier) @reference.reference)
  (match_statement subject: (identifier) @reference.reference)
  (named_expression value: (identifier) @reference.reference)
  (not_operator argument: (identifier) @reference.reference)
  (pair (identifier) @reference.reference)
  (parenthesized_expression (identifier) @reference.reference)
  (raise_statement (identifier) @reference.reference)
  (return_statement (identifier) @reference.reference)
  (set (identifier) @reference.reference)
  (set_comprehension body: (identifier) @reference.reference)
  (slice (identifier) @reference.reference)
  (subscript (identifier) @reference.reference)
  (tuple (identifier) @reference.reference)
  (typed_default_parameter value: (identifier) @reference.reference)
  (unary_operator argument: (identifier) @reference.reference)
  (while_statement condition: (identifier) @reference.reference)
  (with_item value: (identifier) @reference.reference)
  (yield (identifier) @reference.reference)
]
