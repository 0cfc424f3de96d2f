; Java tags. Patterns for the same node are ordered most specific first: the engine keeps the
; first pattern's capture when several claim one name.

; ---- imports
(import_declaration) @import

; ---- types (nesting gives `Outer.Inner.method`)
(class_declaration
  name: (identifier) @name
  body: (class_body) @body) @definition.class
(record_declaration
  name: (identifier) @name
  body: (class_body) @body) @definition.class
(interface_declaration
  name: (identifier) @name
  body: (interface_body) @body) @definition.interface
(annotation_type_declaration
  name: (identifier) @name
  body: (annotation_type_body) @body) @definition.interface
(enum_declaration
  name: (identifier) @name
  body: (enum_body) @body) @definition.enum

; ---- members
(method_declaration
  name: (identifier) @name
  body: (block)? @body) @definition.method
(constructor_declaration
  name: (identifier) @name
  body: (constructor_body) @body) @definition.method
(compact_constructor_declaration
  name: (identifier) @name
  body: (block) @body) @definition.method
(annotation_type_element_declaration name: (identifier) @name) @definition.method
(enum_constant name: (identifier) @name) @definition.constant

; A declaration of one field spans the whole statement (signature with its type); one naming
; several (`int a, b;`) cannot be the range of each, so those fall back to their declarators.
(field_declaration
  (modifiers "static" "final")
  type: (_)
  . declarator: (variable_declarator name: (identifier) @name) .) @definition.constant
(field_declaration
  type: (_)
  . declarator: (variable_declarator name: (identifier) @name) .) @definition.field
(field_declaration
  (modifiers "static" "final")
  declarator: (variable_declarator name: (identifier) @name) @definition.constant)
(field_declaration
  declarator: (variable_declarator name: (identifier) @name) @definition.field)
(constant_declaration
  type: (_)
  . declarator: (variable_declarator name: (identifier) @name) .) @definition.constant
(constant_declaration
  declarator: (variable_declarator name: (identifier) @name) @definition.constant)

; ---- inheritance
(superclass [
  (type_identifier) @reference.inherit
  (generic_type (type_identifier) @reference.inherit)
  (scoped_type_identifier (_) @receiver . (type_identifier) @reference.inherit .)
  (generic_type (scoped_type_identifier (_) @receiver . (type_identifier) @reference.inherit .))
])
(super_interfaces (type_list [
  (type_identifier) @reference.inherit
  (generic_type (type_identifier) @reference.inherit)
  (scoped_type_identifier (_) @receiver . (type_identifier) @reference.inherit .)
  (generic_type (scoped_type_identifier (_) @receiver . (type_identifier) @reference.inherit .))
]))
(extends_interfaces (type_list [
  (type_identifier) @reference.inherit
  (generic_type (type_identifier) @reference.inherit)
  (scoped_type_identifier (_) @receiver . (type_identifier) @reference.inherit .)
  (generic_type (scoped_type_identifier (_) @receiver . (type_identifier) @reference.inherit .))
]))

; ---- names bound inside methods and generic types
(formal_parameter name: (identifier) @local)
(spread_parameter (variable_declarator name: (identifier) @local))
(catch_formal_parameter name: (identifier) @local)
(local_variable_declaration declarator: (variable_declarator name: (identifier) @local))
(enhanced_for_statement name: (identifier) @local)
(lambda_expression parameters: (identifier) @local)
(inferred_parameters (identifier) @local)
(resource name: (identifier) @local)
(instanceof_expression name: (identifier) @local)
(type_pattern (identifier) @local)
(record_pattern_component (identifier) @local)
(type_parameter (type_identifier) @local.type)
; Package and import paths name no symbol of this file: bound, they stay out of references.
(scoped_identifier (identifier) @local)

; ---- references
(method_invocation
  object: (_) @receiver
  name: (identifier) @reference.call)
(method_invocation name: (identifier) @reference.call)
(object_creation_expression type: [
  (type_identifier) @reference.call
  (generic_type (type_identifier) @reference.call)
  (scoped_type_identifier (_) @receiver . (type_identifier) @reference.call .)
  (generic_type (scoped_type_identifier (_) @receiver . (type_identifier) @reference.call .))
])
(method_reference . (_) @receiver . (identifier) @reference.call .)

(marker_annotation name: (identifier) @reference.type)
(annotation name: (identifier) @reference.type)
(scoped_type_identifier (_) @receiver . (type_identifier) @reference.type .)
; `var` is inference, not a type name.
((type_identifier) @reference.type
  (#not-eq? @reference.type "var"))

(field_access
  object: (_) @receiver
  field: (identifier) @reference.reference)
(identifier) @reference.reference
