; Go tags. Patterns for the same node are ordered most specific first: the engine keeps the
; first pattern's capture when several claim one name.

; ---- imports
(import_declaration) @import

; ---- functions and methods
(function_declaration
  name: (identifier) @name
  body: (block)? @body) @definition.function

; The receiver's type qualifies the method: `func (s *Server) Start()` → Server.Start.
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @scope
        (pointer_type (type_identifier) @scope)
        (generic_type type: (type_identifier) @scope)
        (pointer_type (generic_type type: (type_identifier) @scope))
      ]))
  name: (field_identifier) @name
  body: (block)? @body) @definition.method

; ---- types. A lone `type X …` is defined by its whole declaration (signature `type X struct`),
; a member of a `type (…)` group by its own spec: group patterns come first and win.
(type_declaration "(" (type_spec
  name: (type_identifier) @name
  type: (struct_type (field_declaration_list) @body)) @definition.struct)
(type_declaration "(" (type_spec
  name: (type_identifier) @name
  type: (interface_type "{" @body)) @definition.interface)
(type_declaration "(" [
  (type_spec name: (type_identifier) @name)
  (type_alias name: (type_identifier) @name)
] @definition.type)

(type_declaration (type_spec
  name: (type_identifier) @name
  type: (struct_type (field_declaration_list) @body))) @definition.struct
(type_declaration (type_spec
  name: (type_identifier) @name
  type: (interface_type "{" @body))) @definition.interface
(type_declaration [
  (type_spec name: (type_identifier) @name)
  (type_alias name: (type_identifier) @name)
]) @definition.type

; Struct fields and interface methods. A declaration naming several fields (`a, b int`) cannot
; be the range of each (they would nest in one another), so those fall back to the bare name.
(field_declaration
  . name: (field_identifier) @name
  . type: (_)) @definition.field
(field_declaration name: (field_identifier) @name @definition.field)

(interface_type
  (method_elem name: (field_identifier) @name) @definition.method)

; Embedding is Go's inheritance.
(field_declaration_list
  (field_declaration
    !name
    type: [
      (type_identifier) @reference.inherit
      (pointer_type (type_identifier) @reference.inherit)
      (qualified_type package: (package_identifier) @receiver name: (type_identifier) @reference.inherit)
      (pointer_type (qualified_type package: (package_identifier) @receiver name: (type_identifier) @reference.inherit))
    ]))
(interface_type
  (type_elem [
    (type_identifier) @reference.inherit
    (qualified_type package: (package_identifier) @receiver name: (type_identifier) @reference.inherit)
  ]))

; ---- package-level constants and variables, split like types (groups first) and like fields
; (a spec naming several is defined by each bare name). Spec names are matched without their
; field: the grammar only labels the first one `name:`.
(source_file (const_declaration "(" (const_spec . (identifier) @name .) @definition.constant))
(source_file (const_declaration "(" (const_spec . (identifier) @name . [type: (_) value: (_)]) @definition.constant))
(source_file (const_declaration "(" (const_spec (identifier) @name @definition.constant)))
(source_file (const_declaration (const_spec . (identifier) @name . [type: (_) value: (_)])) @definition.constant)
(source_file (const_declaration (const_spec (identifier) @name @definition.constant)))

(source_file (var_declaration (var_spec_list (var_spec . (identifier) @name . [type: (_) value: (_)]) @definition.variable)))
(source_file (var_declaration (var_spec_list (var_spec (identifier) @name @definition.variable))))
(source_file (var_declaration (var_spec . (identifier) @name . [type: (_) value: (_)])) @definition.variable)
(source_file (var_declaration (var_spec (identifier) @name @definition.variable)))

; ---- names bound inside functions
(parameter_declaration name: (identifier) @local)
(variadic_parameter_declaration name: (identifier) @local)
(type_parameter_declaration name: (identifier) @local.type)
; `func (b *Box[T]) …` binds T for the method.
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (generic_type type_arguments: (type_arguments (type_elem (type_identifier) @local.type)))
        (pointer_type (generic_type type_arguments: (type_arguments (type_elem (type_identifier) @local.type))))
      ])))
(short_var_declaration left: (expression_list (identifier) @local))
(range_clause left: (expression_list (identifier) @local))
(receive_statement left: (expression_list (identifier) @local))
(type_switch_statement alias: (expression_list (identifier) @local))
(statement_list (var_declaration [
  (var_spec (identifier) @local)
  (var_spec_list (var_spec (identifier) @local))
]))
(statement_list (const_declaration (const_spec (identifier) @local)))

; ---- references
(call_expression function: (identifier) @reference.call)
(call_expression
  function: (selector_expression
    operand: (_) @receiver
    field: (field_identifier) @reference.call))

; `New[int](x)` parses as a conversion to a generic type.
(type_conversion_expression type: (generic_type type: (type_identifier) @reference.call))

(qualified_type
  package: (package_identifier) @receiver
  name: (type_identifier) @reference.type)
(type_identifier) @reference.type

(selector_expression
  operand: (_) @receiver
  field: (field_identifier) @reference.reference)
; `_ = x` assigns to nothing.
((identifier) @reference.reference
  (#not-eq? @reference.reference "_"))
