; Ruby tags. Patterns claiming the same name are ordered most specific first: the engine keeps
; the first pattern's capture when several claim one name or one reference.

; ---- imports: `require`/`require_relative` with a literal path
((call
  !receiver
  method: (identifier) @_require
  arguments: (argument_list . (string))) @import
  (#any-of? @_require "require" "require_relative"))

; ---- modules and classes. `class A::B` is B qualified by A.
; The grammar does not mark where a header ends, so each definition is matched by several
; patterns that differ only in @body (where the signature stops), tried in this order (the first
; pattern wins): a `;` after the header, a comment right after it, the body, `end`.
(module name: [(constant) @name (scope_resolution scope: (_) @scope name: (constant) @name)] ";" @body) @definition.module
(module name: [(constant) @name (scope_resolution scope: (_) @scope name: (constant) @name)] . (comment) @body) @definition.module
(module name: [(constant) @name (scope_resolution scope: (_) @scope name: (constant) @name)] body: (_) @body) @definition.module
(module name: [(constant) @name (scope_resolution scope: (_) @scope name: (constant) @name)] !body "end" @body) @definition.module

(class name: [(constant) @name (scope_resolution scope: (_) @scope name: (constant) @name)] ";" @body) @definition.class
(class name: [(constant) @name (scope_resolution scope: (_) @scope name: (constant) @name)] . (comment) @body) @definition.class
(class name: [(constant) @name (scope_resolution scope: (_) @scope name: (constant) @name)] superclass: (_) . (comment) @body) @definition.class
(class name: [(constant) @name (scope_resolution scope: (_) @scope name: (constant) @name)] body: (_) @body) @definition.class
(class name: [(constant) @name (scope_resolution scope: (_) @scope name: (constant) @name)] !body "end" @body) @definition.class

; `class << self` scopes its methods to the enclosing class without being a symbol itself.
(singleton_class) @container

; ---- methods, their headers ended as classes' are. A top-level `def` defines a private method
; on Object: a function for our purposes; a top-level `def Const.x` is `Const.x`. (A comment
; right after a top-level header is rare enough not to cost these file-wide patterns more.)
(program (method name: (_) @name ";" @body) @definition.function)
(program (method name: (_) @name body: (_) @body) @definition.function)
(program (method name: (_) @name !body "end" @body) @definition.function)
(program (singleton_method object: [(constant) (scope_resolution)] @scope name: (_) @name ";" @body) @definition.method)
(program (singleton_method object: [(constant) (scope_resolution)] @scope name: (_) @name body: (_) @body) @definition.method)
(program (singleton_method object: [(constant) (scope_resolution)] @scope name: (_) @name !body "end" @body) @definition.method)

; `def self.x` inside a class is `Class.x`, the name an instance method would get. An endless
; method (`def x = 1`) has a body and no `end`.
(method name: (_) @name ";" @body) @definition.method
(method name: (_) @name . (comment) @body) @definition.method
(method name: (_) @name parameters: (_) . (comment) @body) @definition.method
(method name: (_) @name body: (_) @body) @definition.method
(method name: (_) @name !body "end" @body) @definition.method
(singleton_method name: (_) @name ";" @body) @definition.method
(singleton_method name: (_) @name . (comment) @body) @definition.method
(singleton_method name: (_) @name parameters: (_) . (comment) @body) @definition.method
(singleton_method name: (_) @name body: (_) @body) @definition.method
(singleton_method name: (_) @name !body "end" @body) @definition.method

(alias name: (_) @name) @definition.method

; ---- constants
(assignment left: (constant) @name) @definition.constant

; ---- names bound inside methods and blocks: Ruby locals come into being on assignment.
(method_parameters (identifier) @local)
(lambda_parameters (identifier) @local)
(block_parameters (identifier) @local)
(optional_parameter name: (identifier) @local)
(keyword_parameter name: (identifier) @local)
(splat_parameter name: (identifier) @local)
(hash_splat_parameter name: (identifier) @local)
(block_parameter name: (identifier) @local)
(destructured_parameter (identifier) @local)
(assignment left: (identifier) @local)
(operator_assignment left: (identifier) @local)
(left_assignment_list (identifier) @local)
(for pattern: (identifier) @local)
(exception_variable (identifier) @local)

; ---- references
(class
  superclass: (superclass [
    (constant) @reference.inherit
    (scope_resolution scope: (_) @receiver name: (constant) @reference.inherit)
  ]))

; Mixins are Ruby's other inheritance.
((call
  !receiver
  method: (identifier) @_mixin
  arguments: (argument_list [
    (constant) @reference.inherit
    (scope_resolution scope: (_) @receiver name: (constant) @reference.inherit)
  ]))
  (#any-of? @_mixin "include" "extend" "prepend"))

(call receiver: (_)? @receiver method: [(identifier) (constant)] @reference.call)

(scope_resolution scope: (_) @receiver name: (constant) @reference.reference)
(constant) @reference.reference

; A bare name that is not a local variable is a call of a method without arguments.
(identifier) @reference.call
