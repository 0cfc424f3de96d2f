; C tags. Patterns that claim the same name are listed most specific first: the engine keeps the
; earliest pattern for a name (definitions) or a position (references).

; ---------------------------------------------------------------------------------------------
; Functions: the name sits inside nested declarators (`struct foo **bar(void)`, `int (*f(void))(int)`).

(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))))
  ]
  body: (compound_statement) @body) @definition.function

; `static int __init foo(void)`: an unknown attribute macro before the name makes the parser read
; `foo` as the return type and `(void)` as a parenthesized declarator.
(function_definition
  type: (type_identifier) @name
  declarator: (parenthesized_declarator)
  body: (compound_statement) @body) @definition.function

; `SYSCALL_DEFINE1(acct, const char __user *, name) { … }`: a function whose head is a macro
; invocation reads as a call statement followed by a block; the macro's first argument names it.
(translation_unit
  (expression_statement
    (call_expression function: (identifier) arguments: (argument_list . (identifier) @name))) @sig
  .
  (compound_statement) @body @definition.function)
(preproc_ifdef
  (expression_statement
    (call_expression function: (identifier) arguments: (argument_list . (identifier) @name))) @sig
  .
  (compound_statement) @body @definition.function)
(preproc_if
  (expression_statement
    (call_expression function: (identifier) arguments: (argument_list . (identifier) @name))) @sig
  .
  (compound_statement) @body @definition.function)

; `pgd_t * __meminit f(…) { … }`: an attribute macro after a `*` turns the head into an expression.
(
  (ERROR (binary_expression right: (call_expression function: (identifier) @name))) @sig
  .
  (compound_statement) @body @definition.function)

(declaration
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  ]) @declaration.function

; ---------------------------------------------------------------------------------------------
; Types. A typedef of an anonymous struct/union/enum is that type's only name; a typedef of a
; named one is captured by its declarator alone so that the struct does not nest inside it.

(struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @definition.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @definition.struct
(enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @definition.enum

(type_definition
  type: [
    (struct_specifier !name body: (field_declaration_list) @body)
    (union_specifier !name body: (field_declaration_list) @body)
  ]
  declarator: (type_identifier) @name) @definition.struct
(type_definition
  type: (enum_specifier !name body: (enumerator_list) @body)
  declarator: (type_identifier) @name) @definition.enum
(type_definition
  type: [
    (struct_specifier name: (_) body: (_))
    (union_specifier name: (_) body: (_))
    (enum_specifier name: (_) body: (_))
  ]
  declarator: (type_identifier) @name @definition.type)
(type_definition
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (array_declarator declarator: (type_identifier) @name)
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
    (function_declarator declarator: (type_identifier) @name)
  ]) @definition.type

(enumerator name: (identifier) @name) @definition.constant

; `struct list_head list ____cacheline_aligned;`: as for variables below, an attribute after the
; name is read as the declarator and the name is wrapped in an ERROR.
(field_declaration
  (ERROR . (field_identifier) @name .) @definition.field
  .
  declarator: (field_identifier) @_attribute
  (#match? @_attribute "^__")) @sig

; A declaration may declare several names: each declarator is its own definition (so that the
; second does not nest inside the first), and its signature starts at the declaration's type.
(field_declaration
  declarator: [
    (field_identifier) @name
    (pointer_declarator declarator: (field_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name))
    (array_declarator declarator: (field_identifier) @name)
    (pointer_declarator declarator: (array_declarator declarator: (field_identifier) @name))
    (array_declarator declarator: (array_declarator declarator: (field_identifier) @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (field_identifier) @name)))
    (pointer_declarator
      declarator: (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (field_identifier) @name))))
  ] @definition.field
  (#not-match? @name "^_{2,4}(cacheline|aligned|packed|randomize)")) @sig

; ---------------------------------------------------------------------------------------------
; Macros: object-like with a value are constants, flags and function-like ones are macros.

(preproc_def name: (identifier) @name value: (preproc_arg)) @definition.constant
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

; ---------------------------------------------------------------------------------------------
; Variables (each declarator its own definition, as for fields). Inside a function the engine
; turns these into locals.
;
; Kernel-style attribute macros after a name (`static int x __read_mostly;`) make the parser take
; the attribute for the declarator and wrap the real name in an ERROR node. So names starting with
; `__` (reserved in C) are taken for attributes, and the real name is recovered from the ERROR.
; The same predicate drops the empty names of MISSING identifiers.

(declaration
  (ERROR . [(identifier) @name (array_declarator declarator: (identifier) @name)] .) @definition.variable
  .
  declarator: [(identifier) (init_declarator)]
  (#match? @name "^([A-Za-z]|_[A-Za-z0-9])")) @sig
; `static struct page *p __read_mostly;`, `static int __initdata x = 1;`
(declaration
  declarator: [
    (pointer_declarator (ERROR . (identifier) @name .) @definition.variable)
    (init_declarator (ERROR . (identifier) @name .) @definition.variable)
  ]
  (#match? @name "^([A-Za-z]|_[A-Za-z0-9])")) @sig
; `static unsigned long x __read_mostly;` reads as the (invalid) type `unsigned long x`.
(declaration
  type: (sized_type_specifier type: (type_identifier) @name @definition.variable)
  (#match? @name "^([A-Za-z]|_[A-Za-z0-9])")) @sig

; `DEFINE_PER_CPU(type, name)` reads as a macro type specifier, the name inside it.
(macro_type_specifier
  name: (identifier) @reference.call
  type: (type_descriptor type: (type_identifier) @name)) @definition.variable
(macro_type_specifier
  name: (identifier) @reference.call
  (ERROR (identifier) @name)) @definition.variable

; `static DEFINE_PER_CPU(int, name);` may also read as a declaration of `name` with an odd type.
(declaration type: (type_identifier) @reference.call . (ERROR (type_descriptor)))

; `static DEFINE_MUTEX(lock);`: a macro invocation that defines `lock`.
(declaration
  type: (type_identifier) @reference.call
  declarator: (parenthesized_declarator (identifier) @name) @definition.variable) @sig

; The two sibling patterns below name no parent: one rooted at `translation_unit` or
; `compound_statement` keeps a query state alive over the whole file or block, which made them
; cost as much as all definitions together. The pairs mean the same under any parent.

; `int x __read_mostly = 1;` reads as `int x` (no `;`) and a statement `__read_mostly = 1;`.
(
  (declaration declarator: (identifier) @name @definition.variable) @sig
  .
  (expression_statement (assignment_expression left: (identifier) @_attribute))
  (#match? @_attribute "^__"))

; `void __iomem *p = addr;`, `static int __initdata x = 1;` may read as a declaration of the
; attribute (no `;`) and a statement `*p = addr;`, `x = 1;`.
(
  (declaration declarator: (identifier) @_attribute) @sig
  .
  (expression_statement [
    (identifier) @name
    (assignment_expression left: (identifier) @name)
    (pointer_expression argument: (identifier) @name)
    (assignment_expression left: (pointer_expression argument: (identifier) @name))
  ]) @definition.variable
  (#match? @_attribute "^__")
  (#match? @name "^([A-Za-z]|_[A-Za-z0-9])"))

; What is left of an attribute after a recovered declaration (`__read_mostly;`, `__initdata = 1;`)
; reads as a top-level statement, which C does not have: it binds nothing, so it is made a
; top-level local to keep it from being reported as a reference.
(translation_unit
  (expression_statement [(identifier) @local (assignment_expression left: (identifier) @local)]))

; A bare name must also end with a real `;`: the parser recovers from `static int __init foo(void)`
; by inventing a declaration of `__init` whose `;` is missing (empty).
(declaration
  declarator: (identifier) @name @definition.variable
  ";" @_semicolon .
  (#eq? @_semicolon ";")
  (#match? @name "^([A-Za-z]|_[A-Za-z0-9])")) @sig

(declaration
  declarator: [
    (pointer_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @name))
    (array_declarator declarator: (identifier) @name)
    (array_declarator declarator: (array_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name)))
  ] @definition.variable
  (#match? @name "^([A-Za-z]|_[A-Za-z0-9])")) @sig

; The signature stops before the initializer.
(declaration
  declarator: (init_declarator
    declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @name))
      (array_declarator declarator: (identifier) @name)
      (array_declarator declarator: (array_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
      (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name)))
    ]
    value: (_) @body) @definition.variable
  (#match? @name "^([A-Za-z]|_[A-Za-z0-9])")) @sig

(parameter_declaration
  declarator: [
    (identifier) @local
    (pointer_declarator declarator: (identifier) @local)
    (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @local))
    (array_declarator declarator: (identifier) @local)
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @local))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @local)))
  ])

; ---------------------------------------------------------------------------------------------
; Includes.

(preproc_include) @import

; ---------------------------------------------------------------------------------------------
; Calls, then plain uses (listed after so that a callee is a call, not a reference).

(call_expression function: (identifier) @reference.call)
(call_expression
  function: (field_expression argument: (_) @receiver field: (field_identifier) @reference.call))
(call_expression
  function: (parenthesized_expression (pointer_expression argument: (identifier) @reference.call)))
(call_expression
  function: (parenthesized_expression
    (pointer_expression
      argument: (field_expression argument: (_) @receiver field: (field_identifier) @reference.call))))
(macro_type_specifier name: (identifier) @reference.call)

(type_identifier) @reference.type

; Macros taking a type (`max_t(int, a, b)`, `container_of(p, struct foo, member)`) pass type
; keywords as identifiers, and the type name after `struct`/`unsigned` in an ERROR.
(argument_list
  (identifier) @reference.reference
  (#not-any-of? @reference.reference
    "struct" "union" "enum" "const" "volatile" "unsigned" "signed" "int" "long" "short" "char" "void" "bool"))
(argument_list
  (ERROR . (identifier) @reference.type .)
  (#not-any-of? @reference.type "int" "long" "short" "char" "const"))

; Identifiers in expression positions only: declarator names are definitions or locals, and
; identifiers inside ERROR nodes are mostly unknown attribute macros.
[
  (assignment_expression (identifier) @reference.reference)
  (binary_expression (identifier) @reference.reference)
  (unary_expression argument: (identifier) @reference.reference)
  (update_expression argument: (identifier) @reference.reference)
  (pointer_expression argument: (identifier) @reference.reference)
  (field_expression argument: (identifier) @reference.reference)
  (subscript_expression (identifier) @reference.reference)
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
  (subscript_designator (identifier) @reference.reference)
  (enumerator value: (identifier) @reference.reference)
  (array_declarator size: (identifier) @reference.reference)
  (bitfield_clause (identifier) @reference.reference)
  (concatenated_string (identifier) @reference.reference)
  (generic_expression (identifier) @reference.reference)
  (preproc_ifdef name: (identifier) @reference.reference)
  (preproc_elifdef name: (identifier) @reference.reference)
  (preproc_defined (identifier) @reference.reference)
  (preproc_if condition: (identifier) @reference.reference)
  (preproc_elif condition: (identifier) @reference.reference)
]
