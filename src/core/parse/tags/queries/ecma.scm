; Tags shared by JavaScript, TypeScript and TSX: every pattern here compiles against all three
; grammars. Patterns that claim the same name are listed most specific first: the engine keeps
; the earliest pattern for a name (definitions) or a position (references). The catch-all
; reference patterns live at the end of each language's own file, so that the language's
; specific ones (inheritance, JSX) come before them.

; ---- imports: ES statements, re-exports, CommonJS `require('m')` and dynamic `import('m')`
(import_statement) @import
(export_statement source: (string)) @import
(call_expression function: (import) arguments: (arguments . (string))) @import
(call_expression
  function: (identifier) @_require
  arguments: (arguments . (string) .)
  (#eq? @_require "require")) @import

; A binding of a required module is an import, not a constant: claim its name with a container
; (a scope that is no symbol, spanning only the name) so that the constant patterns below do not.
(variable_declarator
  name: (identifier) @name @container
  value: [
    (call_expression function: (identifier) @_require arguments: (arguments . (string) .))
    (member_expression object: (call_expression function: (identifier) @_require arguments: (arguments . (string) .)))
  ]
  (#eq? @_require "require"))
(variable_declarator
  name: (identifier) @name @container
  value: (await_expression (call_expression function: (import))))

; ---- functions
(function_declaration name: (identifier) @name body: (statement_block) @body) @definition.function
(generator_function_declaration name: (identifier) @name body: (statement_block) @body) @definition.function

; An anonymous default export is named by what it is exported as.
(export_statement
  "default" @name
  value: [
    (function_expression !name body: (statement_block) @body)
    (generator_function !name body: (statement_block) @body)
    (arrow_function body: (_) @body)
  ]) @definition.function
(export_statement
  "default" @name
  value: (class !name body: (class_body) @body)) @definition.class

; Functions and classes bound to a variable are named by it; the signature starts at the
; declaration keyword (`export const f = async (a: A): R =>`).
[
  (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: [
        (arrow_function body: (_) @body)
        (function_expression body: (statement_block) @body)
        (generator_function body: (statement_block) @body)
      ]) @definition.function)
  (variable_declaration
    (variable_declarator
      name: (identifier) @name
      value: [
        (arrow_function body: (_) @body)
        (function_expression body: (statement_block) @body)
        (generator_function body: (statement_block) @body)
      ]) @definition.function)
] @sig
[
  (lexical_declaration
    (variable_declarator name: (identifier) @name value: (class body: (class_body) @body)) @definition.class)
  (variable_declaration
    (variable_declarator name: (identifier) @name value: (class body: (class_body) @body)) @definition.class)
] @sig

; `Foo.prototype.f = function …` is a method of Foo.
(assignment_expression
  left: (member_expression
    object: (member_expression object: (_) @scope property: (property_identifier) @_prototype)
    property: (property_identifier) @name)
  right: [
    (arrow_function body: (_) @body)
    (function_expression body: (statement_block) @body)
  ]
  (#eq? @_prototype "prototype")) @definition.method

; `exports.f = …`, `module.exports.f = …`, `Foo.f = …`: the object qualifies the name (the
; engine drops `exports`, `module.exports` and `this`).
(assignment_expression
  left: (member_expression object: (_) @scope property: (property_identifier) @name)
  right: [
    (arrow_function body: (_) @body)
    (function_expression body: (statement_block) @body)
  ]) @definition.function
(assignment_expression
  left: (identifier) @name
  right: [
    (arrow_function body: (_) @body)
    (function_expression body: (statement_block) @body)
  ]) @definition.function

; Methods of classes and of object literals (a method directly inside a class becomes a
; method, one in an object bound to `o` the function `o.m`).
(method_definition
  name: [(property_identifier) (private_property_identifier)] @name
  body: (statement_block) @body) @definition.function
(pair
  key: (property_identifier) @name
  value: [
    (arrow_function body: (_) @body)
    (function_expression body: (statement_block) @body)
  ]) @definition.function

; ---- classes
; A decorated class spans its decorators (so that they are inside it) but its signature starts
; at `class`; an exported class's decorators belong to the export statement.
(export_statement
  decorator: (decorator)
  declaration: (class_declaration "class" @sig name: (_) @name body: (class_body) @body)) @definition.class
(class_declaration "class" @sig name: (_) @name body: (class_body) @body) @definition.class
(class name: (_) @name body: (class_body) @body) @definition.class

; ---- module-level constants and variables (inside functions the engine keeps them as locals).
; Large values are cut at the `=` so that the signature stays a header.
(lexical_declaration
  kind: "const"
  (variable_declarator
    name: (identifier) @name
    value: [(object) (array) (call_expression) (new_expression) (template_string)] @body) @definition.constant) @sig
(lexical_declaration
  kind: "const"
  (variable_declarator name: (identifier) @name) @definition.constant) @sig
[
  (lexical_declaration
    kind: "let"
    (variable_declarator
      name: (identifier) @name
      value: [(object) (array) (call_expression) (new_expression) (template_string)] @body) @definition.variable)
  (variable_declaration
    (variable_declarator
      name: (identifier) @name
      value: [(object) (array) (call_expression) (new_expression) (template_string)] @body) @definition.variable)
] @sig
[
  (lexical_declaration kind: "let" (variable_declarator name: (identifier) @name) @definition.variable)
  (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable)
] @sig

; ---- names bound inside functions: parameters and destructured variables.
; A module-level destructuring (`const {Router} = require('express')`) binds module-wide names
; like a constant does, whose uses at the top level are references: an unnamed container around
; the pattern keeps its names from becoming locals of the whole file.
(program [
  (lexical_declaration (variable_declarator name: [(object_pattern) (array_pattern)] @container))
  (variable_declaration (variable_declarator name: [(object_pattern) (array_pattern)] @container))
  (export_statement (lexical_declaration (variable_declarator name: [(object_pattern) (array_pattern)] @container)))
])
(pattern/identifier) @local
(shorthand_property_identifier_pattern) @local
(arrow_function parameter: (identifier) @local)
(catch_clause parameter: (identifier) @local)
(for_in_statement left: (identifier) @local)

; ---- calls (the catch-all references are in each language's file)
(call_expression function: (identifier) @reference.call)
(call_expression
  function: (member_expression
    object: (_) @receiver
    property: [(property_identifier) (private_property_identifier)] @reference.call))
(new_expression constructor: (identifier) @reference.call)
(new_expression
  constructor: (member_expression object: (_) @receiver property: (property_identifier) @reference.call))
(decorator (identifier) @reference.call)
(decorator (member_expression object: (_) @receiver property: (property_identifier) @reference.call))

; ---- documentation comments: their `{@link Name}` targets are references
(comment) @doc
