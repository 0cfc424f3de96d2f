; inherits: typescript
; TSX: TypeScript plus JSX (the TypeScript grammar has no JSX nodes).

; A component is rendered (called); lowercase names are host elements, not symbols. Closing
; tags repeat the opening tag's name and are left out.
(jsx_opening_element name: (identifier) @reference.call (#match? @reference.call "^[A-Z]"))
(jsx_self_closing_element name: (identifier) @reference.call (#match? @reference.call "^[A-Z]"))
(jsx_opening_element
  name: (member_expression object: (_) @receiver property: (property_identifier) @reference.call))
(jsx_self_closing_element
  name: (member_expression object: (_) @receiver property: (property_identifier) @reference.call))
