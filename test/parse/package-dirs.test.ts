/** Package directories declared by packaging configurations, read as untrusted text (issue 19). */
import assert from 'node:assert/strict'
import { declaredDir, setupPyPackageDirs, textPackageDirs } from '../../src/core/parse/package-dirs.js'

const lines = (...text: string[]): string => `${text.join('\n')}\n`
const dirs = (rows: Array<{ module: string }>): Array<string | undefined> => rows.map((r) => declaredDir(r.module))

describe('declared package directories', () => {
  it('reads setuptools, hatch, poetry and pdm tables of a pyproject.toml', () => {
    assert.deepEqual(dirs(textPackageDirs(lines('[project]', 'name = "x"', '', '[tool.setuptools]', 'package-dir = {"" = "lib"}  # the code'))), ['lib'])
    assert.deepEqual(dirs(textPackageDirs(lines('[tool.setuptools.packages.find]', 'where = [', '  "src",', '  "./plugins/",', ']'))), ['src', 'plugins'])
    assert.deepEqual(dirs(textPackageDirs(lines('[tool.setuptools.package-dir]', '"" = "code"'))), ['code'])
    assert.deepEqual(dirs(textPackageDirs(lines('[tool.hatch.build.targets.wheel]', 'packages = ["python/acme"]'))), ['python'])
    assert.deepEqual(dirs(textPackageDirs(lines('[tool.poetry]', 'packages = [', '  { include = "acme", from = "source" },', ']'))), ['source'])
    assert.deepEqual(dirs(textPackageDirs(lines('[tool.pdm.build]', 'package-dir = "pysrc"'))), ['pysrc'])
  })

  it('reads setup.cfg options and setup.py literals', () => {
    assert.deepEqual(dirs(textPackageDirs(lines('[metadata]', 'name = x', '[options]', 'package_dir =', '    =lib', '[options.packages.find]', 'where = pkgs'))), ['lib', 'pkgs'])
    assert.deepEqual(dirs(setupPyPackageDirs(lines('from setuptools import setup, find_packages', "setup(name='x', package_dir={'': 'lib'}, packages=find_packages(where=\"lib\"))"))), ['lib'])
    assert.equal(setupPyPackageDirs(lines('package_dir = compute()'))[0], undefined)
  })

  it('ignores what leaves the repository, the root itself and too many directories', () => {
    const hostile = lines('[tool.setuptools.packages.find]', 'where = ["../outside", "/etc", "a/../../b", "", ".", "C:\\\\x", "ok"]')
    assert.deepEqual(dirs(textPackageDirs(hostile)), ['ok'])
    const many = lines('[tool.setuptools.packages.find]', `where = [${Array.from({ length: 9 }, (_, i) => `"d${i}"`).join(', ')}]`)
    assert.deepEqual(textPackageDirs(many), [])
    assert.deepEqual(textPackageDirs(lines('# Notes', 'where = ["src"]')), [])
  })
})
