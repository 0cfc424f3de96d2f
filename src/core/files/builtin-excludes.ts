/**
 * Paths never worth indexing whatever `vlt.toml` says: tool state, third-party trees, lockfiles,
 * generated bundles and binary formats. Checked by name only, before any byte is read.
 */

/** A folder of one of these names at any depth. */
const EXCLUDED_DIRS = /(?:^|\/)(?:\.vlt|node_modules|bower_components|vendor|__pycache__|\.yarn)\//

/** Exact file names. */
const LOCKFILES = new Set([
  'package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock', 'pnpm-lock.yaml', 'bun.lockb', 'bun.lock', 'deno.lock',
  'Cargo.lock', 'poetry.lock', 'Pipfile.lock', 'uv.lock', 'pdm.lock', 'go.sum', 'go.work.sum', 'Gemfile.lock',
  'composer.lock', 'mix.lock', 'pubspec.lock', 'Podfile.lock', 'packages.lock.json', 'flake.lock', 'gradle.lockfile',
  'Package.resolved',
])

/** Minified bundles and source maps, by (lowercased) name. */
const BUNDLES = /\.(?:min\.(?:js|mjs|cjs|css)|map)$/

/** Extensions (lowercased, with the dot) of formats that are binary or never useful as text. */
const BINARY_EXTENSIONS = new Set([
  // images
  '.png', '.jpg', '.jpeg', '.gif', '.bmp', '.ico', '.icns', '.webp', '.tif', '.tiff', '.psd', '.heic', '.avif', '.svgz', '.xcf',
  // audio, video
  '.mp3', '.wav', '.ogg', '.flac', '.aac', '.m4a', '.mp4', '.m4v', '.mov', '.avi', '.mkv', '.webm', '.wmv',
  // archives, packages
  '.zip', '.gz', '.tgz', '.bz2', '.xz', '.zst', '.lz4', '.7z', '.rar', '.tar', '.jar', '.war', '.ear', '.whl', '.egg',
  '.deb', '.rpm', '.apk', '.ipa', '.dmg', '.iso', '.msi', '.nupkg', '.gem',
  // fonts
  '.woff', '.woff2', '.ttf', '.otf', '.eot',
  // compiled code and libraries
  '.wasm', '.so', '.dylib', '.dll', '.exe', '.o', '.a', '.obj', '.lib', '.class', '.pyc', '.pyo', '.pyd', '.elc', '.beam',
  // documents
  '.pdf', '.doc', '.docx', '.xls', '.xlsx', '.ppt', '.pptx', '.odt', '.ods', '.odp',
  // data, databases, model weights
  '.db', '.sqlite', '.sqlite3', '.mdb', '.npy', '.npz', '.pkl', '.pickle', '.parquet', '.feather', '.h5', '.hdf5',
  '.onnx', '.pt', '.pth', '.ckpt', '.safetensors', '.tflite', '.pb',
])

/** `dir` is a file's folder path with its trailing '/' ('' at the root). */
export function isExcludedDir(dir: string): boolean {
  return EXCLUDED_DIRS.test(dir)
}

/** Lockfile names are case-sensitive; bundle and binary checks take the lowercased name and extension. */
export function isExcludedFile(base: string, lowerBase: string, lowerExtension: string): boolean {
  return LOCKFILES.has(base) || BINARY_EXTENSIONS.has(lowerExtension) || BUNDLES.test(lowerBase)
}
