; inherits: ecma
; TypeScript tags on top of the shared ECMAScript ones; tsx.scm inherits this file.

; ---- declarations the ECMAScript patterns do not know
(export_statement
  decorator: (decorator)
  declaration: (abstract_class_declaration "abstract" @sig name: (type_identifier) @name body: (class_body) @body)) @definition.class
(abstract_class_declaration "abstract" @sig name: (type_identifier) @name body: (class_body) @body) @definition.class
(interface_declaration name: (type_identifier) @name body: (interface_body) @body) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name body: (enum_body) @body) @definition.enum
(enum_body name: (property_identifier) @name @definition.constant)
(enum_assignment name: (property_identifier) @name) @definition.constant
(internal_module name: [(identifier) (nested_identifier)] @name body: (statement_block) @body) @definition.namespace
(module name: [(identifier) (nested_identifier)] @name body: (statement_block) @body) @definition.module
(module name: (string (string_fragment) @name) body: (statement_block) @body) @definition.module

; Signatures without a body: overloads and ambient functions, interface and abstract members.
; Members of inline object types (`props: {a: string}`) belong to no named type and are left out.
(function_signature name: (identifier) @name) @declaration.function
(class_body [
  (method_signature name: [(property_identifier) (private_property_identifier)] @name)
  (abstract_method_signature name: [(property_identifier) (private_property_identifier)] @name)
] @declaration.method)
(interface_body (method_signature name: [(property_identifier) (private_property_identifier)] @name) @declaration.method)
(interface_body (property_signature name: [(property_identifier) (private_property_identifier)] @name) @definition.field)
(type_alias_declaration value: (object_type [
  (method_signature name: [(property_identifier) (private_property_identifier)] @name) @declaration.method
  (property_signature name: [(property_identifier) (private_property_identifier)] @name) @definition.field
]))

; ---- class fields: a field holding a function is a method (`handleClick = () => {}`)
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name
  value: [
    (arrow_function body: (_) @body)
    (function_expression body: (statement_block) @body)
  ]) @definition.method
(public_field_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.field

; ---- names bound inside definitions (parameters come from the shared `pattern` captures)
(type_parameter name: (type_identifier) @local.type)
(mapped_type_clause name: (type_identifier) @local.type)
(infer_type (type_identifier) @local.type)

; ---- inheritance
(extends_clause value: (identifier) @reference.inherit)
(extends_clause value: (member_expression object: (_) @receiver property: (property_identifier) @reference.inherit))
(implements_clause [
  (type_identifier) @reference.inherit
  (generic_type name: (type_identifier) @reference.inherit)
  (nested_type_identifier module: (_) @receiver name: (type_identifier) @reference.inherit)
  (generic_type name: (nested_type_identifier module: (_) @receiver name: (type_identifier) @reference.inherit))
])
(extends_type_clause type: [
  (type_identifier) @reference.inherit
  (generic_type name: (type_identifier) @reference.inherit)
  (nested_type_identifier module: (_) @receiver name: (type_identifier) @reference.inherit)
  (generic_type name: (nested_type_identifier module: (_) @receiver name: (type_identifier) @reference.inherit))
])

; ---- `typeof x` in a type names a value
; (`typeof a.b.c`: the grammar's member chain there is no expression, so each link is spelt out).
(type_query [
  (identifier) @reference.reference
  (member_expression object: (identifier) @reference.reference)
  (member_expression object: (_) @receiver property: (property_identifier) @reference.reference)
  (member_expression object: (member_expression object: (identifier) @reference.reference))
  (member_expression object: (member_expression object: (_) @receiver property: (property_identifier) @reference.reference))
])

; ---- everything else that names something (kept last: the patterns above win)
(nested_type_identifier module: (_) @receiver name: (type_identifier) @reference.type)
(type_identifier) @reference.type
; Expressions only (through their supertype): binding names, import specifiers and JSX tag
; names are identifiers or member expressions too, but name nothing that is used.
(primary_expression/member_expression
  object: (_) @receiver
  property: [(property_identifier) (private_property_identifier)] @reference.reference)
(primary_expression/identifier) @reference.reference
[
  (assignment_expression
    left: [
      (identifier) @reference.reference
      (member_expression object: (_) @receiver property: [(property_identifier) (private_property_identifier)] @reference.reference)
    ])
  (augmented_assignment_expression
    left: [
      (identifier) @reference.reference
      (member_expression object: (_) @receiver property: [(property_identifier) (private_property_identifier)] @reference.reference)
    ])
]
(shorthand_property_identifier) @reference.reference
; `export {x}` names what it exports, as an import does.
(export_specifier name: (identifier) @reference.import)
