; C++ tags. Not `; inherits: c`: the C query's kernel-macro recovery patterns name nodes the C++
; grammar does not have. Patterns that claim the same name are listed most specific first: the
; engine keeps the earliest pattern for a name (definitions) or a position (references).
;
; A template's definition is the whole `template <…>` declaration, so that its type parameters
; are locals of the definition and its signature shows them.

; ---------------------------------------------------------------------------------------------
; Namespaces and types.

; `namespace a::b` is `b` in `a` (`a::b::c` keeps its last two names, deeper nesting is not named).
(namespace_definition
  name: [
    (nested_namespace_specifier (namespace_identifier) @scope . (namespace_identifier) @name .)
    (nested_namespace_specifier
      (nested_namespace_specifier (namespace_identifier) @scope . (namespace_identifier) @name .) .)
  ]
  body: (declaration_list) @body) @definition.namespace
(namespace_definition
  name: (namespace_identifier) @name
  body: (declaration_list) @body) @definition.namespace

; `class EXPORT_MACRO Name : public Base {…}` reads as a function `Name` returning `class EXPORT_MACRO`
; (or, with a base clause, one named after the base, the class name in an ERROR).
(function_definition
  type: [(class_specifier) (struct_specifier)]
  (ERROR . (identifier) @name)
  declarator: (identifier) @reference.inherit
  body: (compound_statement) @body) @definition.class
(function_definition
  type: [(class_specifier) (struct_specifier)]
  .
  declarator: (identifier) @name
  body: (compound_statement) @body) @definition.class

(template_declaration
  (class_specifier
    name: [(type_identifier) @name (template_type name: (type_identifier) @name)]
    body: (field_declaration_list) @body)) @definition.class
(template_declaration
  (struct_specifier
    name: [(type_identifier) @name (template_type name: (type_identifier) @name)]
    body: (field_declaration_list) @body)) @definition.struct

(class_specifier
  name: [
    (type_identifier) @name
    (template_type name: (type_identifier) @name)
    (qualified_identifier scope: (_) @scope name: (type_identifier) @name)
  ]
  body: (field_declaration_list) @body) @definition.class
(struct_specifier
  name: [
    (type_identifier) @name
    (template_type name: (type_identifier) @name)
    (qualified_identifier scope: (_) @scope name: (type_identifier) @name)
  ]
  body: (field_declaration_list) @body) @definition.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @definition.struct
(enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @definition.enum

(enumerator name: (identifier) @name) @definition.constant

(template_declaration (alias_declaration name: (type_identifier) @name)) @definition.type
(alias_declaration name: (type_identifier) @name) @definition.type

; A typedef of an anonymous type is that type's only name; a typedef of a named one is captured
; by its declarator alone so that the type does not nest inside it.
(type_definition
  type: [
    (struct_specifier !name body: (field_declaration_list) @body)
    (class_specifier !name body: (field_declaration_list) @body)
    (union_specifier !name body: (field_declaration_list) @body)
  ]
  declarator: (type_identifier) @name) @definition.struct
(type_definition
  type: (enum_specifier !name body: (enumerator_list) @body)
  declarator: (type_identifier) @name) @definition.enum
(type_definition
  type: [
    (struct_specifier name: (_) body: (_))
    (class_specifier name: (_) body: (_))
    (union_specifier name: (_) body: (_))
    (enum_specifier name: (_) body: (_))
  ]
  declarator: (type_identifier) @name @definition.type)
(type_definition
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
  ]) @definition.type

; ---------------------------------------------------------------------------------------------
; Functions. Out-of-line definitions (`void Foo::bar()`, `ns::Foo::bar`) are methods whose
; innermost qualifier is the @scope; the enclosing namespace blocks supply the rest. A real `::`
; is required (see the last pattern here).

(template_declaration
  (function_definition
    declarator: [
      (function_declarator declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)
      (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))
      (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))
    ]
    body: (_) @body)) @definition.function
(template_declaration
  (function_definition
    declarator: [
      (function_declarator declarator: [
        (qualified_identifier scope: (_) @scope "::" @_colons name: [(identifier) (operator_name) (destructor_name)] @name)
        (qualified_identifier name: (qualified_identifier scope: (_) @scope "::" @_colons name: [(identifier) (operator_name) (destructor_name)] @name))
      ])
      (pointer_declarator declarator: (function_declarator
        declarator: (qualified_identifier scope: (_) @scope "::" @_colons name: [(identifier) (operator_name)] @name)))
      (reference_declarator (function_declarator
        declarator: (qualified_identifier scope: (_) @scope "::" @_colons name: [(identifier) (operator_name)] @name)))
    ]
    body: (_) @body)
  (#eq? @_colons "::")) @definition.method

(function_definition
  declarator: [
    (function_declarator declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier)] @name)))
    (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))
  ]
  body: (_) @body) @definition.function
(function_definition
  declarator: [
    (function_declarator declarator: [
      (qualified_identifier scope: (_) @scope "::" @_colons name: [(identifier) (operator_name) (destructor_name)] @name)
      (qualified_identifier name: (qualified_identifier scope: (_) @scope "::" @_colons name: [(identifier) (operator_name) (destructor_name)] @name))
      (qualified_identifier name: (qualified_identifier name: (qualified_identifier scope: (_) @scope "::" @_colons name: [(identifier) (operator_name) (destructor_name)] @name)))
    ])
    (pointer_declarator declarator: (function_declarator
      declarator: (qualified_identifier scope: (_) @scope "::" @_colons name: [(identifier) (operator_name)] @name)))
    (reference_declarator (function_declarator
      declarator: (qualified_identifier scope: (_) @scope "::" @_colons name: [(identifier) (operator_name)] @name)))
  ]
  body: (_) @body
  (#eq? @_colons "::")) @definition.method

; `EXPORT_MACRO size_t f(…) {…}` reads as `size_t::f` with a missing (empty) `::`, which the
; patterns above reject: it is a plain function.
(function_definition
  declarator: (function_declarator declarator: (qualified_identifier name: (identifier) @name))
  body: (_) @body) @definition.function

; Declarations without a body: prototypes, methods declared in a class, constructors/destructors.
[
  (declaration
    declarator: [
      (function_declarator declarator: [(identifier) (operator_name) (destructor_name)] @name)
      (pointer_declarator declarator: (function_declarator declarator: [(identifier) (operator_name)] @name))
      (reference_declarator (function_declarator declarator: [(identifier) (operator_name)] @name))
    ])
  (field_declaration
    declarator: [
      (function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name)
      (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (operator_name)] @name))
      (reference_declarator (function_declarator declarator: [(field_identifier) (operator_name)] @name))
    ])
] @declaration.function

; ---------------------------------------------------------------------------------------------
; Fields and variables: each declarator is its own definition (so that the second of `int a, b;`
; does not nest inside the first), its signature starting at the declaration's type. Inside a
; function the engine turns variables into locals.

(field_declaration
  declarator: [
    (field_identifier) @name
    (pointer_declarator declarator: (field_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name))
    (reference_declarator (field_identifier) @name)
    (array_declarator declarator: (field_identifier) @name)
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (field_identifier) @name)))
  ] @definition.field
  default_value: (_)? @body) @sig

(declaration
  declarator: [
    (identifier) @name
    (pointer_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (reference_declarator (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name)))
  ] @definition.variable) @sig

; The signature stops before the initializer.
(declaration
  declarator: (init_declarator
    declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @name))
      (reference_declarator (identifier) @name)
      (array_declarator declarator: (identifier) @name)
      (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name)))
    ]
    value: (_) @body) @definition.variable) @sig

; ---------------------------------------------------------------------------------------------
; Locals that are not declarations: parameters, range-for variables, structured bindings,
; template parameters.

([
  (parameter_declaration declarator: [
    (identifier) @local
    (pointer_declarator declarator: (identifier) @local)
    (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @local))
    (reference_declarator (identifier) @local)
    (array_declarator declarator: (identifier) @local)
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @local)))
  ])
  (optional_parameter_declaration declarator: [
    (identifier) @local
    (pointer_declarator declarator: (identifier) @local)
    (reference_declarator (identifier) @local)
  ])
  (variadic_parameter_declaration declarator: (variadic_declarator (identifier) @local))
  (for_range_loop declarator: [
    (identifier) @local
    (pointer_declarator declarator: (identifier) @local)
    (reference_declarator (identifier) @local)
    (structured_binding_declarator (identifier) @local)
  ])
  (structured_binding_declarator (identifier) @local)
  (type_parameter_declaration (type_identifier) @local.type)
  (optional_type_parameter_declaration name: (type_identifier) @local.type)
  (variadic_type_parameter_declaration (type_identifier) @local.type)
  (lambda_capture_specifier (identifier) @local)
])

; ---------------------------------------------------------------------------------------------
; Macros: object-like with a value are constants, flags and function-like ones are macros.

(preproc_def name: (identifier) @name value: (preproc_arg)) @definition.constant
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

(preproc_include) @import

; ---------------------------------------------------------------------------------------------
; Inheritance, calls, then plain uses (a base or callee is not also a type or plain reference).

(base_class_clause
  [
    (type_identifier) @reference.inherit
    (template_type name: (type_identifier) @reference.inherit)
    (qualified_identifier scope: (_) @receiver name: (type_identifier) @reference.inherit)
    (qualified_identifier scope: (_) @receiver name: (template_type name: (type_identifier) @reference.inherit))
  ])

(call_expression
  function: [
    (identifier) @reference.call
    (template_function name: (identifier) @reference.call)
  ])
(call_expression
  function: (field_expression
    argument: (_) @receiver
    field: [
      (field_identifier) @reference.call
      (template_method name: (field_identifier) @reference.call)
    ]))
(call_expression
  function: (qualified_identifier
    scope: (_) @receiver
    name: [
      (identifier) @reference.call
      (template_function name: (identifier) @reference.call)
    ]))
(call_expression
  function: (qualified_identifier
    name: (qualified_identifier
      scope: (_) @receiver
      name: [
        (identifier) @reference.call
        (template_function name: (identifier) @reference.call)
      ])))
(new_expression
  type: [
    (type_identifier) @reference.call
    (template_type name: (type_identifier) @reference.call)
    (qualified_identifier scope: (_) @receiver name: (type_identifier) @reference.call)
    (qualified_identifier scope: (_) @receiver name: (template_type name: (type_identifier) @reference.call))
  ])

(qualified_identifier
  scope: (_) @receiver
  name: [
    (type_identifier) @reference.type
    (template_type name: (type_identifier) @reference.type)
  ])
(type_identifier) @reference.type

(qualified_identifier scope: (_) @receiver name: (identifier) @reference.reference)

; Identifiers in expression positions only: declarator names are definitions or locals.
[
  (argument_list (identifier) @reference.reference)
  (assignment_expression (identifier) @reference.reference)
  (binary_expression (identifier) @reference.reference)
  (unary_expression argument: (identifier) @reference.reference)
  (update_expression argument: (identifier) @reference.reference)
  (pointer_expression argument: (identifier) @reference.reference)
  (field_expression argument: (identifier) @reference.reference)
  (subscript_expression (identifier) @reference.reference)
  (subscript_argument_list (identifier) @reference.reference)
  (conditional_expression (identifier) @reference.reference)
  (comma_expression (identifier) @reference.reference)
  (cast_expression value: (identifier) @reference.reference)
  (sizeof_expression value: (identifier) @reference.reference)
  (parenthesized_expression (identifier) @reference.reference)
  (expression_statement (identifier) @reference.reference)
  (return_statement (identifier) @reference.reference)
  (case_statement value: (identifier) @reference.reference)
  (init_declarator value: (identifier) @reference.reference)
  (initializer_list (identifier) @reference.reference)
  (initializer_pair value: (identifier) @reference.reference)
  (for_range_loop right: (identifier) @reference.reference)
  (enumerator value: (identifier) @reference.reference)
  (array_declarator size: (identifier) @reference.reference)
  (bitfield_clause (identifier) @reference.reference)
  (template_argument_list (identifier) @reference.reference)
  (throw_statement (identifier) @reference.reference)
  (static_assert_declaration condition: (identifier) @reference.reference)
  (preproc_ifdef name: (identifier) @reference.reference)
  (preproc_defined (identifier) @reference.reference)
  (preproc_if condition: (identifier) @reference.reference)
  (preproc_elif condition: (identifier) @reference.reference)
]
