; inherits: ecma
; JavaScript (and JSX) tags on top of the shared ECMAScript ones.

; ---- class fields: a field holding a function is a method (`handleClick = () => {}`)
(field_definition
  property: [(property_identifier) (private_property_identifier)] @name
  value: [
    (arrow_function body: (_) @body)
    (function_expression body: (statement_block) @body)
  ]) @definition.method
(field_definition property: [(property_identifier) (private_property_identifier)] @name) @definition.field

; ---- inheritance
(class_heritage (identifier) @reference.inherit)
(class_heritage (member_expression object: (_) @receiver property: (property_identifier) @reference.inherit))

; ---- JSX: a component is rendered (called); lowercase names are host elements, not symbols.
; Closing tags repeat the opening tag's name and are left out.
(jsx_opening_element name: (identifier) @reference.call (#match? @reference.call "^[A-Z]"))
(jsx_self_closing_element name: (identifier) @reference.call (#match? @reference.call "^[A-Z]"))
(jsx_opening_element
  name: (member_expression object: (_) @receiver property: (property_identifier) @reference.call))
(jsx_self_closing_element
  name: (member_expression object: (_) @receiver property: (property_identifier) @reference.call))

; ---- everything else that names something (kept last: the patterns above win)
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
