/**
 * Python references resolved as pyright resolves them (issue 19), on small repositories shaped
 * like the real cases: flask's helpers re-exported by a src-layout package, click's annotated
 * `ctx: Context` parameters, `sys.exit` beside `Context.exit`, module attribute chains, typed
 * and inherited attributes.
 */
import { strict as assert } from 'node:assert'
import { openQueryContext } from '../../src/core/query/context.js'
import { findReferences, type RefsResult } from '../../src/core/query/refs.js'
import { createGitRepo } from '../helpers/git-fixture.js'
import { indexedRepo } from '../helpers/indexed-repo.js'

const lines = (...text: string[]): string => `${text.join('\n')}\n`
const at = (refs: RefsResult['references'] | undefined): string[] => (refs ?? []).map((r) => `${r.path}:${r.line}`).sort()

describe('refs (Python)', function () {
  this.timeout(60_000)

  describe('a src-layout package re-exporting its helpers', () => {
    const fx = indexedRepo({
      'pyproject.toml': lines('[project]', 'name = "flask"'),
      'src/flask/__init__.py': lines('from .app import Flask as Flask', 'from .helpers import url_for as url_for'),
      'src/flask/helpers.py': lines('def url_for(endpoint):', '    return endpoint'),
      'src/flask/app.py': lines('class Flask:', '    def url_for(self, endpoint):', '        return endpoint', '', '', 'class Blueprint:', '    def url_for(self, endpoint):', '        return endpoint'),
      'src/flask/views.py': lines('def render(flask):', '    return flask.url_for("x")'),
      // A module named like the package deep in the tests (flask's own cli test app has one).
      'tests/test_apps/cliapp/inner1/inner2/flask.py': lines('app = None'),
      'tests/test_helpers.py': lines(
        'import flask',
        'from flask import url_for',
        '',
        '',
        'def test_url(app):',
        '    url_for("index")',
        '    flask.url_for("index")',
        '    app.url_for("index")',
      ),
    })

    it('finds the uses of a helper imported from the package and called through it', () => {
      const result = findReferences(fx.qctx, 'src/flask/helpers.py:url_for')
      assert.deepEqual(at(result.references), ['src/flask/__init__.py:2', 'tests/test_helpers.py:2', 'tests/test_helpers.py:6', 'tests/test_helpers.py:7'])
      assert.deepEqual(at(result.ambiguous), [])
    })

    it('never takes the module flask for the class Flask', () => {
      const result = findReferences(fx.qctx, 'Flask.url_for')
      assert.ok(!at(result.references).includes('tests/test_helpers.py:7'), at(result.references).join(' '))
      assert.ok(!at(result.ambiguous).includes('tests/test_helpers.py:7'))
      // A parameter named flask is of no known class: Flask's or Blueprint's, undecided.
      assert.ok(!at(result.references).includes('src/flask/views.py:2'))
      assert.ok(at(result.ambiguous).includes('src/flask/views.py:2'))
    })
  })

  describe("click's annotated contexts", () => {
    const fx = indexedRepo({
      'src/click/__init__.py': lines('from .core import Context as Context', 'from .termui import prompt as prompt'),
      'src/click/termui.py': lines('def prompt(text):', '    return input(text)'),
      'src/click/_termui_impl.py': lines('ESC = "\\x1b"', '', '', 'def raw_terminal():', '    return ESC'),
      'src/click/terminal.py': lines('def raw_terminal():', '    from ._termui_impl import raw_terminal as f', '', '    return f()'),
      'src/click/options.py': lines(
        'from .termui import prompt',
        '',
        '',
        'class Option:',
        '    prompt = None',
        '',
        '    def value(self):',
        '        return prompt(self.prompt)',
      ),
      'tests/test_echo.py': lines('import click._termui_impl', '', '', 'def test_prompt():', '    click.prompt("name")'),
      'src/click/core.py': lines(
        'import sys',
        'import typing as t',
        '',
        '',
        'class Context:',
        '    def fail(self, message):',
        '        raise RuntimeError(message)',
        '',
        '    def exit(self, code=0):',
        '        sys.exit(code)',
        '',
        '',
        'class Parameter:',
        '    def fail(self, message):',
        '        raise ValueError(message)',
        '',
        '    def process(self, ctx: Context, value):',
        '        if not value:',
        '            ctx.fail("missing")',
        '        self.fail("bad")',
        '',
        '    def check(self, ctx: t.Optional["Context"]):',
        '        ctx.fail("optional")',
        '',
        '',
        'def main(args):',
        '    ctx = Context()',
        '    ctx.fail("direct")',
        '    sys.exit(1)',
      ),
    })

    it('resolves a parameter through its annotation and a local through its constructor', () => {
      const result = findReferences(fx.qctx, 'Context.fail')
      assert.deepEqual(at(result.references), ['src/click/core.py:19', 'src/click/core.py:23', 'src/click/core.py:28'])
      assert.deepEqual(at(result.ambiguous), [])
    })

    it('keeps self.fail to its own class', () => {
      assert.deepEqual(at(findReferences(fx.qctx, 'Parameter.fail').references), ['src/click/core.py:20'])
    })

    it('finds a function imported beside a class member of its name, and through a package bound by import a.b', () => {
      const result = findReferences(fx.qctx, 'src/click/termui.py:prompt')
      assert.deepEqual(at(result.references), ['src/click/__init__.py:2', 'src/click/options.py:1', 'src/click/options.py:8', 'tests/test_echo.py:5'])
    })

    it("decides an import by the module it names, not by the importing file's own definition", () => {
      assert.deepEqual(at(findReferences(fx.qctx, 'src/click/terminal.py:raw_terminal').references), [])
      assert.deepEqual(at(findReferences(fx.qctx, 'src/click/_termui_impl.py:raw_terminal').references), ['src/click/terminal.py:2'])
    })

    it('never takes sys.exit for Context.exit', () => {
      const result = findReferences(fx.qctx, 'Context.exit')
      assert.deepEqual(at(result.references), [])
      assert.deepEqual(at(result.ambiguous), [])
    })
  })

  describe("flask's typed and inherited attributes, django's module attribute chains", () => {
    const fx = indexedRepo({
      'src/flask/__init__.py': lines('from .app import Flask as Flask'),
      'src/flask/json/__init__.py': lines('def dumps(obj):', '    return str(obj)'),
      'src/flask/json/provider.py': lines('class JSONProvider:', '    def dumps(self, obj):', '        return str(obj)'),
      'src/flask/sansio/scaffold.py': lines('class Scaffold:', '    def add_url_rule(self, rule):', '        return rule'),
      'src/flask/sansio/app.py': lines(
        'from ..json.provider import JSONProvider',
        'from .scaffold import Scaffold',
        '',
        '',
        'class App(Scaffold):',
        '    def __init__(self):',
        '        self.json: JSONProvider = JSONProvider()',
      ),
      'src/flask/app.py': lines(
        'from . import json',
        'from .sansio.app import App',
        '',
        '',
        'class Flask(App):',
        '    def setup(self):',
        '        self.add_url_rule("/")',
        '        return self.json.dumps({})',
        '',
        '    def raw(self):',
        '        return json.dumps({})',
      ),
      'src/flask/views.py': lines('class View:', '    methods = None'),
      'src/flask/config.py': lines('import json', '', '', 'def load(text):', '    return json.dumps(text)'),
      'scripts/json.py': lines('def dumps(obj):', '    return obj'),
      'scripts/run.py': lines('import json', '', 'json.dumps({})'),
      'tests/test_views.py': lines(
        'import flask.views',
        'from flask.views import View',
        '',
        '',
        'def test_local(client):',
        '    class View(flask.views.View):',
        '        methods = ["GET"]',
        '',
        '    assert View.methods',
        '    client.add_url_rule("/")',
        '',
        '',
        'def test_base():',
        '    assert View.methods',
      ),
      'src/flask/sync.py': lines(
        'class Flask:',
        '    def async_to_sync(self, func):',
        '        from asgiref.sync import async_to_sync as asgiref_async_to_sync',
        '        return asgiref_async_to_sync(func)',
      ),
      'src/other/views.py': lines('class View:', '    def add_url_rule(self, rule):', '        return rule', '', '    def dumps(self):', '        return ""'),
      'django/__init__.py': '',
      'django/db/__init__.py': '',
      'django/db/models/__init__.py': lines('from django.db.models import sql'),
      'django/db/models/sql/__init__.py': lines('from django.db.models.sql.subqueries import *  # NOQA'),
      'django/db/models/sql/subqueries.py': lines('class DeleteQuery:', '    pass'),
      'django/utils/archive.py': lines('def extract(path):', '    return BaseArchive().extract(path)', '', '', 'class BaseArchive:', '    def extract(self, path):', '        return path'),
      'django/core/templates.py': lines('from django.utils import archive', '', '', 'def download(path):', '    archive.extract(path)'),
      'django/db/models/base.py': lines('class Model:', '    def _get_pk_val(self):', '        return 1', '', '    def _set_pk_val(self, value):', '        pass', '', '    pk = property(_get_pk_val, _set_pk_val)'),
      'django/db/models/deletion.py': lines('from django.db.models import sql', '', '', 'def delete(model):', '    return sql.DeleteQuery(model)'),
    })

    it('follows an annotated attribute to its class', () => {
      assert.deepEqual(at(findReferences(fx.qctx, 'JSONProvider.dumps').references), ['src/flask/app.py:8'])
      assert.deepEqual(at(findReferences(fx.qctx, 'src/flask/json/__init__.py:dumps').references), ['src/flask/app.py:11'])
    })

    it("reads import json in a package's module as the standard library's, in a script as its sibling's", () => {
      assert.deepEqual(at(findReferences(fx.qctx, 'scripts/json.py:dumps').references), ['scripts/run.py:3'])
    })

    it('finds an inherited method called on self', () => {
      const result = findReferences(fx.qctx, 'Scaffold.add_url_rule')
      assert.deepEqual(at(result.references), ['src/flask/app.py:7'])
      assert.deepEqual(at(result.ambiguous), ['tests/test_views.py:10'])
    })

    it("leaves a test's own class of the name, another module's name and an untyped parameter's member out", () => {
      const view = findReferences(fx.qctx, 'src/flask/views.py:View')
      assert.deepEqual(at(view.references), ['tests/test_views.py:14', 'tests/test_views.py:2', 'tests/test_views.py:6'])
      assert.deepEqual(at(findReferences(fx.qctx, 'Flask.async_to_sync').references), [])
      // client is a pytest fixture: Scaffold's or View's add_url_rule, nothing says which.
      const rule = findReferences(fx.qctx, 'Scaffold.add_url_rule')
      assert.ok(!at(rule.references).includes('tests/test_views.py:10'))
      assert.ok(at(rule.ambiguous).includes('tests/test_views.py:10'))
    })

    it("takes a module's attribute for its function, not for a method of a class in it, and a class body's bare names for its methods", () => {
      assert.deepEqual(at(findReferences(fx.qctx, 'BaseArchive.extract').references), ['django/utils/archive.py:2'])
      assert.deepEqual(at(findReferences(fx.qctx, 'django/utils/archive.py:extract').references), ['django/core/templates.py:5'])
      assert.deepEqual(at(findReferences(fx.qctx, 'Model._set_pk_val').references), ['django/db/models/base.py:8'])
    })

    it('follows a module attribute chain through a star re-export', () => {
      assert.deepEqual(at(findReferences(fx.qctx, 'DeleteQuery').references), ['django/db/models/deletion.py:5'])
    })
  })

  describe("click's attribute chains through declared types", () => {
    const fx = indexedRepo({
      'src/click/__init__.py': lines('from .core import Context as Context'),
      'src/click/testing.py': lines('class CliRunner:', '    pass'),
      'tests/test_context.py': lines('import click', '', '', 'def test_runner():', '    click.testing.CliRunner()', '    click.core.Context(None)'),
      'src/click/_termui_impl.py': lines(
        'import os',
        '',
        '',
        'class ProgressBar:',
        '    def update(self, n):',
        '        return n',
        '',
        '    def render(self, env: dict[str, str] | None = None):',
        '        if env is None:',
        '            env = os.environ.copy()',
        '        env.update({})',
      ),
      'src/click/core.py': lines(
        'import typing as t',
        '',
        'from ._termui_impl import ProgressBar',
        '',
        'ALLOWED = {"os"}',
        '',
        '',
        'class Context:',
        '    params: dict[str, t.Any]',
        '',
        '    def __init__(self, bar: ProgressBar):',
        '        self.params = {}',
        '        self.seen = set()',
        '        self.bar = bar',
        '',
        '    def finish(self, **kwargs):',
        '        self.params.update(kwargs)',
        '        self.seen.update(kwargs)',
        '        self.bar.update(1)',
        '        self.extra.update(kwargs)',
        '',
        '    @property',
        '    def extra(self) -> dict[str, int]:',
        '        return {}',
        '',
        '',
        'class Command:',
        '    def to_info_dict(self) -> dict[str, t.Any]:',
        '        return {}',
        '',
        '    def run(self, ctx: Context):',
        '        ctx.params.update({})',
        '        ctx.bar.update(2)',
        '        rv = dict(ctx.params)',
        '        rv.update({})',
        '        info = self.to_info_dict()',
        '        info.update({})',
        '        ALLOWED.update({"sys"})',
        '        return rv',
        '',
        '',
        'class Group(Command):',
        '    def to_info_dict(self) -> dict[str, t.Any]:',
        '        info_dict = super().to_info_dict()',
        '        info_dict.update(commands=[])',
        '        return info_dict',
        '',
        '',
        'def counted(bars):',
        '    bar = Command()',
        '    bar.run(None)',
        '    for bar in bars:',
        '        bar.update(4)',
        '',
        '',
        'class Runner:',
        '    @t.overload',
        '    def run(self, n: int) -> int: ...',
        '',
        '    @t.overload',
        '    def run(self, n: str) -> str: ...',
        '',
        '    def run(self, n):',
        '        bar = ProgressBar(',
        '        )',
        '        bar.update(n)',
        '        ctx = self.context()',
        '        ctx.params.update({})',
        '',
        '    def context(self) -> Context:',
        '        return Context(ProgressBar())',
        '',
        '',
        'def test_run(runner):',
        '    runner.bar.update(5)',
      ),
    })

    it('follows a receiver through annotated attributes, constructors, literals, properties and return annotations (in the body of an overloaded method too)', () => {
      const result = findReferences(fx.qctx, 'ProgressBar.update')
      assert.deepEqual(at(result.references).filter((r) => r !== 'src/click/core.py:53'), ['src/click/core.py:19', 'src/click/core.py:33', 'src/click/core.py:66'])
    })

    it("reaches a submodule through its package only when the package's __init__ imports it", () => {
      assert.ok(at(findReferences(fx.qctx, 'src/click/core.py:Context').references).includes('tests/test_context.py:6'))
      const runner = findReferences(fx.qctx, 'CliRunner')
      assert.deepEqual(at(runner.references), [])
      assert.deepEqual(at(runner.ambiguous), ['tests/test_context.py:5'])
    })

    it("leaves an attribute of an untyped parameter (a pytest fixture's) undecided", () => {
      const result = findReferences(fx.qctx, 'ProgressBar.update')
      assert.ok(!at(result.references).includes('src/click/core.py:75'))
      assert.ok(at(result.ambiguous).includes('src/click/core.py:75'))
    })

    it("does not take a local's constructor for its class when a for loop rebinds it", () => {
      const result = findReferences(fx.qctx, 'ProgressBar.update')
      assert.ok([...at(result.references), ...at(result.ambiguous)].includes('src/click/core.py:53'))
    })
  })

  describe("flask's cli groups: declared attributes, decorators and pytest fixtures", () => {
    const fx = indexedRepo({
      'src/app/scaffold.py': lines(
        'from click import Group',
        '',
        '',
        'class Scaffold:',
        '    cli: Group',
        '',
        '    def __init__(',
        '        self,',
        '        cli: Group,',
        '    ):',
        '        pass',
        '',
        '',
        'class AppGroup(Group):',
        '    def command(self, name=None):',
        '        return name',
        '',
        '',
        'class App(Scaffold):',
        '    def __init__(self):',
        '        self.cli = AppGroup()',
      ),
      'tests/test_cli.py': lines(
        'import click',
        'import pytest',
        'from app.scaffold import App, AppGroup',
        '',
        '',
        'def test_declared():',
        '    app = App()',
        '    app.cli.command()',
        '    group = AppGroup()',
        '    group.command()',
        '',
        '',
        'def test_fixture(app, runner):',
        '    @app.cli.command()',
        '    def check(value):',
        '        app = click.get_current_context().obj',
        '        return app',
        '',
        '',
        '@pytest.mark.parametrize(',
        '    "x",',
        '    (1, 2),',
        ')',
        'def test_parametrized(',
        '    x, app',
        '):',
        '    app.cli.command()',
      ),
    })

    it("reads an attribute by a base's declared type, not a subclass's unannotated assignment", () => {
      const result = findReferences(fx.qctx, 'AppGroup.command')
      assert.deepEqual(at(result.references), ['tests/test_cli.py:10'])
    })

    it('reads a decorator in the scope around the function, without the bindings of nested functions, past decorators over several lines', () => {
      const result = findReferences(fx.qctx, 'AppGroup.command')
      assert.deepEqual(at(result.ambiguous), ['tests/test_cli.py:14', 'tests/test_cli.py:27'])
    })
  })

  describe("click's test streams: objects of classes from outside the repository", () => {
    const fx = indexedRepo({
      'src/click/__init__.py': '',
      'src/click/formatting.py': lines('class HelpFormatter:', '    def getvalue(self) -> str:', '        return ""'),
      'src/click/testing.py': lines('import io', '', '', 'class BytesIOCopy(io.BytesIO):', '    pass', '', '', 'class StreamMixer:', '    stdout: BytesIOCopy', '', '    def __init__(self) -> None:', '        self.stdout = BytesIOCopy()', '', '', 'def get_binary_stream() -> t.BinaryIO:', '    pass', '', '', 'def make_formatter() -> HelpFormatter:', '    pass'),
      'src/click/utils.py': lines('def open_stream(name) -> t.IO[t.Any]:', '    pass'),
      'tests/test_streams.py': lines(
        'import io',
        'from io import StringIO',
        'from click.formatting import HelpFormatter',
        'from click.testing import StreamMixer, get_binary_stream, make_formatter',
        'import click.utils',
        '',
        'def test_streams():',
        '    mixer = StreamMixer()',
        '    wrapped = open(',
        '        mixer.stdout, encoding="utf-8", mode="w"',
        '    )',
        '    assert mixer.stdout.getvalue()',
        '    buf = io.BytesIO()',
        '    assert buf.getvalue()',
        '    text = StringIO()',
        '    assert text.getvalue()',
        '    formatter = HelpFormatter()',
        '    assert formatter.getvalue()',
        '',
        '',
        'def test_files(name):',
        '    with open(name) as f:',
        '        f.getvalue()',
        '    with click.utils.open_stream(name) as s:',
        '        s.getvalue()',
        '    stdin = get_binary_stream()',
        '    stdin.getvalue()',
        '    made = make_formatter()',
        '    made.getvalue()',
      ),
      'tests/test_imports.py': '',
    })

    it("drops a method called on an instance of a class from outside the repository, a keyword argument on a call's next line binding nothing", () => {
      const result = findReferences(fx.qctx, 'HelpFormatter.getvalue')
      assert.deepEqual(at(result.references).filter((r) => r < 'tests/test_streams.py:2'), ['tests/test_streams.py:18'])
    })

    it("types what a function returns by its annotation and what `with` enters (a file object, an object from outside the repository)", () => {
      const result = findReferences(fx.qctx, 'HelpFormatter.getvalue')
      assert.deepEqual(at(result.references), ['tests/test_streams.py:18', 'tests/test_streams.py:29'])
      assert.deepEqual(at(result.ambiguous), [])
    })
  })

  describe("flask's config and class-based views: methods' returns and class receivers", () => {
    const fx = indexedRepo({
      'src/flask/config.py': lines('class Config(dict):', '    def from_mapping(self, mapping) -> bool:', '        return True', '', '', 'class Settings:', '    def from_mapping(self, mapping) -> bool:', '        return False'),
      'src/flask/app.py': lines(
        'from .config import Config',
        '',
        '',
        'class Flask:',
        '    def __init__(self):',
        '        self.config = self.make_config()',
        '',
        '    def make_config(self) -> Config:',
        '        return Config()',
      ),
      'src/flask/views.py': lines('class View:', '    @classmethod', '    def as_view(cls, name):', '        return name'),
      'tests/test_views.py': lines(
        'from flask.app import Flask',
        'from flask.views import View',
        '',
        '',
        'def test_config():',
        '    app = Flask()',
        '    app.config.from_mapping({})',
        '',
        '',
        'def test_view():',
        '    class Index(View):',
        '        pass',
        '',
        '    Index.as_view("index")',
        '    View.as_view("view")',
      ),
    })

    it("types an attribute assigned from one of the class's own methods by its return annotation", () => {
      assert.deepEqual(at(findReferences(fx.qctx, 'Config.from_mapping').references), ['tests/test_views.py:7'])
    })

    it('reads a class named by a receiver nothing else binds as that class', () => {
      const result = findReferences(fx.qctx, 'View.as_view')
      assert.deepEqual(at(result.references), ['tests/test_views.py:14', 'tests/test_views.py:15'])
    })
  })

  describe('a receiver whose class nothing decides', () => {
    const fx = indexedRepo({
      'src/click/testing.py': lines('class EchoingStdin:', '    def read(self, n: int = -1) -> bytes:', '        return b""'),
      'tests/test_read.py': lines('def test_read(paths):', '    for path in paths:', '        with path.open() as f:', '            f.read()'),
    })

    it("is undecided though one class of the repository alone defines the member: the object may be a file's", () => {
      const result = findReferences(fx.qctx, 'EchoingStdin.read')
      assert.deepEqual(at(result.references), [])
      assert.deepEqual(at(result.ambiguous), ['tests/test_read.py:4'])
    })
  })

  describe('package directories a packaging configuration declares', () => {
    // `acme` is a namespace package (no __init__.py) under lib/, with a stale copy under examples/
    // that a path suffix cannot tell apart; `tools` is a top-level module of lib/.
    const layout = {
      'lib/acme/util.py': lines('def helper():', '    return 1'),
      'lib/tools.py': lines('def tool():', '    return 2'),
      'examples/old/acme/util.py': lines('def helper():', '    return 0'),
      'tests/test_acme.py': lines('from acme.util import helper', 'import tools', '', '', 'def test_it():', '    helper()', '    tools.tool()'),
    }

    for (const [config, text] of Object.entries({
      'pyproject.toml': lines('[project]', 'name = "acme"', '', '[tool.setuptools.packages.find]', 'where = ["lib"]'),
      'setup.cfg': lines('[options]', 'package_dir =', '    =lib'),
      'setup.py': lines('from setuptools import setup', "setup(name='acme', package_dir={'': 'lib'})"),
    })) {
      describe(`declared in ${config}`, () => {
        const fx = indexedRepo({ ...layout, [config]: text })

        it('resolves a namespace package and a top-level module under the declared directory', () => {
          assert.deepEqual(at(findReferences(fx.qctx, 'lib/acme/util.py:helper').references), ['tests/test_acme.py:1', 'tests/test_acme.py:6'])
          assert.deepEqual(at(findReferences(fx.qctx, 'lib/tools.py:tool').references), ['tests/test_acme.py:7'])
        })
      })
    }

    it('changes resolution on the next build when pyproject.toml changes', async () => {
      const repo = createGitRepo({ files: { ...layout, 'pyproject.toml': lines('[project]', 'name = "acme"') } })
      try {
        const before = await openQueryContext(repo.dir, { warn: () => {} })
        assert.deepEqual(at(findReferences(before, 'lib/tools.py:tool').references), [])
        repo.write({ 'pyproject.toml': lines('[project]', 'name = "acme"', '', '[tool.setuptools]', 'package-dir = {"" = "lib"}') })
        repo.commit('declare lib/')
        const after = await openQueryContext(repo.dir, { warn: () => {} })
        assert.deepEqual(at(findReferences(after, 'lib/tools.py:tool').references), ['tests/test_acme.py:7'])
        assert.deepEqual(at(findReferences(after, 'lib/acme/util.py:helper').references), ['tests/test_acme.py:1', 'tests/test_acme.py:6'])
      } finally {
        repo.cleanup()
      }
    })
  })

  describe('values a type checker follows: typed globals, walrus, with, rebindings, tuples', () => {
    const fx = indexedRepo({
      'src/flask/__init__.py': lines('from .app import Flask as Flask', 'from .globals import current_app as current_app', 'from .globals import g as g'),
      'src/flask/globals.py': lines(
        'import typing as t',
        'from contextvars import ContextVar',
        '',
        'from werkzeug.local import LocalProxy',
        '',
        'if t.TYPE_CHECKING:',
        '    from .app import Flask',
        '    from .ctx import _AppCtxGlobals',
        '',
        '    class FlaskProxy(Flask): ...',
        '',
        '    class GlobalsProxy(_AppCtxGlobals): ...',
        '',
        'current_app: FlaskProxy = LocalProxy("app")  # type: ignore[assignment]',
        'g: GlobalsProxy = LocalProxy("g")  # type: ignore[assignment]',
      ),
      'src/flask/ctx.py': lines(
        'import contextlib',
        'import typing as t',
        'from collections.abc import Iterator',
        '',
        '',
        'class _AppCtxGlobals:',
        '    def get(self, name):',
        '        return name',
        '',
        '',
        'class AppContext:',
        '    def push(self) -> None:',
        '        pass',
        '',
        '    def copy(self) -> t.Self:',
        '        return self',
        '',
        '    def __enter__(self) -> "AppContext":',
        '        return self',
        '',
        '',
        'class Plain:',
        '    def push(self) -> None:',
        '        pass',
        '',
        '',
        '@contextlib.contextmanager',
        'def pushed() -> Iterator[AppContext]:',
        '    yield AppContext()',
        '',
        '',
        'def find() -> t.Optional[AppContext]:',
        '    return None',
        '',
        '',
        'def pair() -> tuple[AppContext, Plain]:',
        '    return AppContext(), Plain()',
      ),
      'src/flask/app.py': lines(
        'from .ctx import AppContext',
        '',
        '',
        'class Flask:',
        '    def app_context(self) -> AppContext:',
        '        return AppContext()',
        '',
        '    @property',
        '    def name(self) -> str:',
        '        return "app"',
        '',
        '    @name.setter',
        '    def name(self, value: str) -> None:',
        '        pass',
      ),
      'tests/test_globals.py': lines(
        'import flask',
        'from flask import current_app, g',
        '',
        '',
        'def test_globals():',
        '    flask.g.get("x")',
        '    g.get("y")',
        '    return current_app.name, flask.current_app.name',
      ),
      'tests/test_ctx.py': lines(
        'from flask.app import Flask',
        'from flask.ctx import AppContext, Plain, find, pair, pushed',
        '',
        '',
        'def test_walrus():',
        '    if (ctx := find()) is not None:',
        '        ctx.push()',
        '',
        '',
        'def test_with(app: Flask):',
        '    with app.app_context() as ctx:',
        '        ctx.push()',
        '    with pushed() as pushed_ctx:',
        '        pushed_ctx.push()',
        '    with Plain() as plain:',
        '        plain.push()',
        '',
        '',
        'def test_rebind(app_ctx: AppContext):',
        '    ctx = AppContext()',
        '    ctx = ctx.copy()',
        '    ctx.push()',
        '    other = app_ctx.copy()',
        '    other.push()',
        '',
        '',
        'def test_reassigned(app, flag):',
        '    app = Flask()',
        '    app.name',
        '',
        '',
        'def test_reassigned_in_branch(app, flag):',
        '    if flag:',
        '        app = Flask()',
        '    app.name',
        '',
        '',
        'def test_tuple():',
        '    app_ctx, plain = pair()',
        '    app_ctx.push()',
        '    plain.push()',
        '',
        '',
        'def test_with_lines(app: Flask):',
        '    with app.app_context(',
        '    ) as ctx:',
        '        ctx.push()',
      ),
    })

    it('types a name imported from a module by its declaration there, also through a re-export and as a module attribute', () => {
      assert.deepEqual(at(findReferences(fx.qctx, '_AppCtxGlobals.get').references), ['tests/test_globals.py:6', 'tests/test_globals.py:7'])
    })

    it("reads a decorator in the scope around its function: a property's setter", () => {
      const result = findReferences(fx.qctx, 'Flask.name')
      assert.deepEqual(at(result.references), ['src/flask/app.py:12', 'tests/test_ctx.py:29', 'tests/test_globals.py:8', 'tests/test_globals.py:8'])
      // Bound in one branch only: the parameter's class, which nothing says.
      assert.deepEqual(at(result.ambiguous), ['tests/test_ctx.py:35'])
    })

    it('types a walrus binding, what a with statement enters (its items over several lines too), a rebinding through a method returning Self, a tuple item', () => {
      const result = findReferences(fx.qctx, 'AppContext.push')
      assert.deepEqual(at(result.references), ['tests/test_ctx.py:12', 'tests/test_ctx.py:14', 'tests/test_ctx.py:22', 'tests/test_ctx.py:24', 'tests/test_ctx.py:40', 'tests/test_ctx.py:47', 'tests/test_ctx.py:7'])
      // Plain has no __enter__ in the repository: what it enters is unknown.
      assert.deepEqual(at(result.ambiguous), ['tests/test_ctx.py:16'])
      assert.deepEqual(at(findReferences(fx.qctx, 'Plain.push').references), ['tests/test_ctx.py:41'])
    })
  })

  describe('values of generic classes: items of containers, context variables, type parameters', () => {
    const fx = indexedRepo({
      'src/flask/globals.py': lines(
        'import typing as t',
        'from contextvars import ContextVar',
        '',
        'T = t.TypeVar("T")',
        '',
        '',
        'class AppContext:',
        '    def push(self) -> None:',
        '        pass',
        '',
        '',
        'class Other:',
        '    def push(self) -> None:',
        '        pass',
        '',
        '    def check(self) -> bool:',
        '        return False',
        '',
        '',
        'class ProxyMixin(t.Protocol[T]):',
        '    def _get_current_object(self) -> T: ...',
        '',
        '',
        'class AppContextProxy(ProxyMixin[AppContext], AppContext): ...',
        '',
        '',
        '_cv_app: ContextVar[AppContext] = ContextVar("app")',
        'app_ctx: AppContextProxy = None  # type: ignore',
        '',
        '',
        'class Tagger:',
        '    def tag(self) -> None:',
        '        pass',
      ),
      'src/flask/tag.py': lines(
        'import typing as t',
        '',
        '',
        'class Tag:',
        '    def check(self) -> bool:',
        '        return True',
        '',
        '',
        'class Serializer:',
        '    order: list[Tag]',
        '',
        '    def __init__(self) -> None:',
        '        self.tags: dict[str, Tag] = {}',
        '',
        '    def tag(self) -> None:',
        '        for tag in self.order:',
        '            tag.check()',
        '        self.tags["x"].check()',
        '',
        '    def tagged(self) -> t.Iterator[Tag]:',
        '        return iter(self.order)',
        '',
        '',
        'def setupmethod(f):',
        '    def wrapper(self: Serializer):',
        '        self.tag()',
        '',
        '    return wrapper',
      ),
      'src/flask/loops.py': lines(
        'from .tag import Tag',
        '',
        '',
        'class Registry:',
        '    def __init__(self) -> None:',
        '        self.pairs: list[tuple[Tag, int]] = []',
        '        self.named: dict[str, Tag] = {}',
        '',
        '    def run(self) -> None:',
        '        for tag, count in self.pairs:',
        '            tag.check()',
        '        for number, tag in enumerate(self.named.values()):',
        '            tag.check()',
        '        for name, tag in self.named.items():',
        '            tag.check()',
        '        for name, tag in self.named:',
        '            tag.check()',
      ),
      'src/flask/app.py': lines(
        'from .globals import _cv_app, app_ctx',
        'from .tag import Serializer',
        '',
        '',
        'def current():',
        '    if (ctx := _cv_app.get(None)) is not None:',
        '        ctx.push()',
        '    obj = app_ctx._get_current_object()',
        '    obj.push()',
        '    for tag in Serializer().tagged():',
        '        tag.check()',
      ),
    })

    it("types a loop's target and a subscript by the container's item type", () => {
      assert.deepEqual(at(findReferences(fx.qctx, 'Tag.check').references).filter((r) => !r.startsWith('src/flask/loops.py')), ['src/flask/app.py:11', 'src/flask/tag.py:17', 'src/flask/tag.py:18'])
    })

    it('types the items a loop unpacks: tuples of a list, enumerate(), a mapping\'s items()', () => {
      const result = findReferences(fx.qctx, 'Tag.check')
      assert.deepEqual(at(result.references).filter((r) => r.startsWith('src/flask/loops.py')), ['src/flask/loops.py:11', 'src/flask/loops.py:13', 'src/flask/loops.py:15'])
      // A mapping's keys are strings: unpacking one is nothing typed.
      assert.deepEqual(at(result.ambiguous), ['src/flask/loops.py:17'])
    })

    it("types a ContextVar's value and a method returning a type parameter its subclass binds", () => {
      assert.deepEqual(at(findReferences(fx.qctx, 'AppContext.push').references), ['src/flask/app.py:7', 'src/flask/app.py:9'])
    })

    it('types an annotated self parameter outside a class', () => {
      assert.deepEqual(at(findReferences(fx.qctx, 'Serializer.tag').references), ['src/flask/tag.py:26'])
    })
  })

  describe('functions a decorator makes into objects', () => {
    const fx = indexedRepo({
      'src/click/__init__.py': lines('from .core import Group as Group', 'from .decorators import group as group'),
      'src/click/core.py': lines(
        'import typing as t',
        '',
        '',
        'class Command:',
        '    def invoke(self) -> None:',
        '        pass',
        '',
        '',
        'class Group(Command):',
        '    def add_command(self, cmd: Command) -> None:',
        '        pass',
        '',
        '    def command(self, *args: t.Any) -> t.Callable[[t.Callable[..., t.Any]], Command]:',
        '        return lambda f: Command()',
        '',
        '',
        'class Other:',
        '    def add_command(self, cmd) -> None:',
        '        pass',
        '',
        '    def invoke(self) -> None:',
        '        pass',
      ),
      'src/click/decorators.py': lines(
        'import typing as t',
        '',
        'from .core import Group',
        '',
        'GrpType = t.TypeVar("GrpType", bound=Group)',
        '',
        '',
        '@t.overload',
        'def group(name: t.Callable[..., t.Any]) -> Group: ...',
        '',
        '',
        '@t.overload',
        'def group(name: str | None, cls: type[GrpType]) -> t.Callable[[t.Callable[..., t.Any]], GrpType]: ...',
        '',
        '',
        '@t.overload',
        'def group(name: str | None = ...) -> t.Callable[[t.Callable[..., t.Any]], Group]: ...',
        '',
        '',
        'def group(name=None, cls=None) -> Group | t.Callable[[t.Callable[..., t.Any]], Group | GrpType]:',
        '    return Group()',
      ),
      'examples/naval.py': lines(
        'import click',
        '',
        '',
        '@click.group()',
        'def cli():',
        '    pass',
        '',
        '',
        '@cli.command()',
        'def ship():',
        '    pass',
        '',
        '',
        'cli.add_command(ship)',
        '',
        '',
        '@click.group("other", cls=click.Group)',
        'def other():',
        '    pass',
        '',
        '',
        'other.add_command(ship)',
        'ship.invoke()',
      ),
    })

    it("types a function by the class its decorator's annotation makes of it, unless the call picks another class", () => {
      const result = findReferences(fx.qctx, 'Group.add_command')
      assert.deepEqual(at(result.references), ['examples/naval.py:14'])
      assert.deepEqual(at(result.ambiguous), ['examples/naval.py:22'])
      assert.deepEqual(at(findReferences(fx.qctx, 'Command.invoke').references), ['examples/naval.py:23'])
    })
  })

  describe('parameters a base class annotates, comprehension targets', () => {
    const fx = indexedRepo({
      'src/click/core.py': lines(
        'class Context:',
        '    def invoke(self) -> None:',
        '        pass',
        '',
        '',
        'class Other:',
        '    def invoke(self) -> None:',
        '        pass',
        '',
        '',
        'class Command:',
        '    def run(self, ctx: Context) -> None:',
        '        pass',
        '',
        '',
        'class Custom(Command):',
        '    def run(self, ctx):',
        '        ctx.invoke()',
        '',
        '    def all(self, contexts: list[Context]) -> None:',
        '        return [c.invoke() for c in contexts]',
      ),
    })

    it("types an unannotated parameter of an overriding method by the base method's annotation, and a comprehension's target by its iterable", () => {
      assert.deepEqual(at(findReferences(fx.qctx, 'Context.invoke').references), ['src/click/core.py:18', 'src/click/core.py:21'])
    })
  })
  describe('values pyright infers: unannotated returns, narrowing, casts, except clauses, nested blocks', () => {
    const fx = indexedRepo({
      'src/click/__init__.py': lines(
        'from .core import Command as Command',
        'from .core import Context as Context',
        'from .core import Group as Group',
        'from .decorators import command as command',
        'from .exceptions import ClickException as ClickException',
        'from .termui import progressbar as progressbar',
      ),
      'src/click/core.py': lines(
        'import typing as t',
        '',
        '',
        'class Context:',
        '    def __init__(self, command: "Command") -> None:',
        '        self.command = command',
        '',
        '    def __enter__(self) -> "Context":',
        '        return self',
        '',
        '    def invoke(self) -> None:',
        '        pass',
        '',
        '',
        'class Command:',
        '    def make_context(self, name: str) -> Context:',
        '        return Context(self)',
        '',
        '    def main(self) -> None:',
        '        pass',
        '',
        '',
        'class Group(Command):',
        '    def resolve_command(self, name: str) -> tuple[str, Command | None]:',
        '        return name, None',
        '',
        '    def list_commands(self) -> list[str]:',
        '        return []',
        '',
        '',
        'class Other:',
        '    def invoke(self) -> None:',
        '        pass',
        '',
        '    def main(self) -> None:',
        '        pass',
        '',
        '    def make_context(self, name):',
        '        pass',
        '',
        '    def resolve_command(self, name):',
        '        pass',
        '',
        '    def list_commands(self):',
        '        pass',
        '',
        '    def update(self, n):',
        '        pass',
        '',
        '    def show(self):',
        '        pass',
        '',
        '',
        'def visible(ctx: Context) -> t.Iterator[tuple[str, Command]]:',
        '    yield "x", ctx.command',
      ),
      'src/click/decorators.py': lines(
        'import typing as t',
        '',
        'from .core import Command',
        '',
        '',
        'def command(name: str | None = None) -> t.Callable[[t.Callable[..., t.Any]], Command]:',
        '    return lambda f: Command()',
      ),
      'src/click/exceptions.py': lines('class ClickException(Exception):', '    def show(self) -> None:', '        pass'),
      'src/click/termui.py': lines(
        'class ProgressBar:',
        '    def __enter__(self) -> "ProgressBar":',
        '        return self',
        '',
        '    def update(self, n: int) -> None:',
        '        pass',
        '',
        '',
        'def progressbar(length: int) -> ProgressBar:',
        '    return ProgressBar()',
      ),
      'tests/test_values.py': lines(
        'import typing as t',
        '',
        'import click',
        'from click.core import Group, Other, visible',
        '',
        '',
        'def _create(length=10, **kwargs):',
        '    bar = click.progressbar(length)',
        '    for key, value in kwargs.items():',
        '        setattr(bar, key, value)',
        '    return bar',
        '',
        '',
        'def pick(flag):',
        '    if flag:',
        '        return click.progressbar(1)',
        '    return Other()',
        '',
        '',
        'def test_returns():',
        '    with _create(2) as bar:',
        '        bar.update(1)',
        '    other = _create(3)',
        '    other.update(2)',
        '    pick(True).update(3)',
        '',
        '',
        'def test_cast(ctx: click.Context):',
        '    multi = t.cast(Group, ctx.command)',
        '    multi.list_commands()',
        '',
        '',
        'def test_isinstance(ctx: click.Context, obj):',
        '    command = ctx.command',
        '    if isinstance(command, Group) and command.list_commands():',
        '        name, cmd = command.resolve_command("x")',
        '        if cmd is not None:',
        '            with cmd.make_context(name) as sub:',
        '                sub.invoke()',
        '    assert isinstance(obj, Group)',
        '    obj.list_commands()',
        '',
        '',
        'def test_not_isinstance(obj, other):',
        '    if not isinstance(obj, Group):',
        '        obj.list_commands()',
        '    if isinstance(other, (Group, Other)):',
        '        other.list_commands()',
        '',
        '',
        'def test_except(cmd: click.Command):',
        '    try:',
        '        cmd.main()',
        '    except click.ClickException as e:',
        '        e.show()',
        '',
        '',
        'def test_nested(cmd: click.Command, flag):',
        '    if flag:',
        '        sub = cmd.make_context("x")',
        '        sub.invoke()',
        '    else:',
        '        sub = Other()',
        '        sub.invoke()',
        '    sub.invoke()',
        '',
        '',
        'def test_decorated_twice():',
        '    @click.command()',
        '    def cli():',
        '        pass',
        '',
        '    cli.main()',
        '',
        '    @click.command()',
        '    def cli():',
        '        pass',
        '',
        '    cli.main()',
        '',
        '',
        'def test_assigned():',
        '    cli = Other()',
        '    cli.main()',
        '',
        '',
        'class Aliased(click.Group):',
        '    def resolve_command(self, name):',
        '        return click.Group.resolve_command(self, name)',
        '',
        '',
        'def listing(ctx: click.Context) -> list:',
        '    return [',
        '        command.main()',
        '        for name, command in visible(ctx)',
        '    ]',
        '',
        '',
        'from click import core',
        '',
        '',
        'def via_module(self, name):',
        '    return core.Group.resolve_command(self, name)',
        '',
        '',
        'def assigned_attribute(ctx: click.Context):',
        '    ctx.obj = Other()',
        '    ctx.obj.make_context("x")',
        '',
        '',
        'def except_below_with(cmd: click.Command):',
        '    with cmd.make_context("x") as ctx:',
        '        try:',
        '            ctx.invoke()',
        '        except (EOFError, KeyError) as e:',
        '            raise',
        '        except click.ClickException as e:',
        '            e.show()',
        '',
        '',
        'def attribute_of_attribute(ctx: click.Context):',
        '    ctx.obj = Other()',
        '    ctx.obj.verbose = True',
        '    ctx.obj.show()',
      ),
    })

    it("types a call of a function without a return annotation by what all its returns give", () => {
      const result = findReferences(fx.qctx, 'ProgressBar.update')
      assert.deepEqual(at(result.references), ['tests/test_values.py:22', 'tests/test_values.py:24'])
      // Returns of two classes: undecided.
      assert.deepEqual(at(result.ambiguous), ['tests/test_values.py:25'])
    })

    it('types a cast, a name an isinstance test narrows (if, and, assert), an except clause, an assigned attribute, a class through a submodule', () => {
      const lists = findReferences(fx.qctx, 'Group.list_commands')
      assert.deepEqual(at(lists.references), ['tests/test_values.py:30', 'tests/test_values.py:35', 'tests/test_values.py:41'])
      // Not narrowed by a negated test nor by a tuple of classes.
      assert.deepEqual(at(lists.ambiguous), ['tests/test_values.py:46', 'tests/test_values.py:48'])
      assert.deepEqual(at(findReferences(fx.qctx, 'Group.resolve_command').references), ['tests/test_values.py:103', 'tests/test_values.py:36', 'tests/test_values.py:89'])
      assert.deepEqual(at(findReferences(fx.qctx, 'Command.make_context').references), ['tests/test_values.py:112', 'tests/test_values.py:38', 'tests/test_values.py:60'])
      // Each except clause its own binding, not the items of a with statement above it.
      assert.deepEqual(at(findReferences(fx.qctx, 'ClickException.show').references), ['tests/test_values.py:118', 'tests/test_values.py:55'])
      // An attribute chain's assignment before its use, whose own attributes' assignments do not rebind it.
      assert.deepEqual(at(findReferences(fx.qctx, 'Other.make_context').references), ['tests/test_values.py:108'])
      assert.deepEqual(at(findReferences(fx.qctx, 'Other.show').references), ['tests/test_values.py:124'])
    })

    it('types a name by its binding in the block around the use, and a comprehension target over several lines', () => {
      const result = findReferences(fx.qctx, 'Context.invoke')
      assert.deepEqual(at(result.references), ['tests/test_values.py:114', 'tests/test_values.py:39', 'tests/test_values.py:61'])
      // After the branches: a Context or an Other.
      assert.deepEqual(at(result.ambiguous), ['tests/test_values.py:65'])
      assert.deepEqual(at(findReferences(fx.qctx, 'Other.invoke').references), ['tests/test_values.py:64'])
    })

    it('types functions a decorator makes into objects, each definition of the name in its own scope', () => {
      assert.deepEqual(at(findReferences(fx.qctx, 'Command.main').references), ['tests/test_values.py:53', 'tests/test_values.py:73', 'tests/test_values.py:79', 'tests/test_values.py:94'])
      assert.deepEqual(at(findReferences(fx.qctx, 'Other.main').references), ['tests/test_values.py:84'])
    })
  })
  describe("a function's own import of a name its module defines too", () => {
    const fx = indexedRepo({
      'src/click/_termui_impl.py': lines('def get_pager_file(color=None):', '    return color'),
      'src/click/termui.py': lines(
        'def get_pager_file(color=None):',
        '    from ._termui_impl import get_pager_file',
        '',
        '    return get_pager_file(color=color)',
        '',
        '',
        'def echo_via_pager(color=None):',
        '    with get_pager_file(color=color) as pager:',
        '        pager.write("x")',
      ),
    })

    it('takes the name in that function for the imported one, elsewhere for the module\'s own', () => {
      assert.deepEqual(at(findReferences(fx.qctx, 'src/click/_termui_impl.py:get_pager_file').references), ['src/click/termui.py:2', 'src/click/termui.py:4'])
      assert.deepEqual(at(findReferences(fx.qctx, 'src/click/termui.py:get_pager_file').references), ['src/click/termui.py:8'])
    })
  })
  describe('attributes holding a class, called', () => {
    const fx = indexedRepo({
      'src/werkzeug/datastructures.py': lines(
        'class MultiDict:',
        '    def lists(self):',
        '        return []',
        '',
        '',
        'class Accept:',
        '    def lists(self):',
        '        return []',
      ),
      'tests/test_datastructures.py': lines(
        'from werkzeug import datastructures as ds',
        '',
        '',
        'class _MutableTests:',
        '    storage_class: type[ds.MultiDict]',
        '',
        '    def test_lists(self):',
        '        md = self.storage_class()',
        '        md.lists()',
        '',
        '',
        'class TestAccept:',
        '    storage_class = ds.Accept',
        '',
        '    def test_lists(self):',
        '        self.storage_class().lists()',
      ),
    })

    it('types a call of an attribute declared type[X], or assigned a class in the class body, as an X', () => {
      assert.deepEqual(at(findReferences(fx.qctx, 'MultiDict.lists').references), ['tests/test_datastructures.py:9'])
      assert.deepEqual(at(findReferences(fx.qctx, 'Accept.lists').references), ['tests/test_datastructures.py:16'])
    })
  })
})
