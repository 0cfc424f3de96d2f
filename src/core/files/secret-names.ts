/**
 * Files that hold credentials by convention. They are skipped unread (reason 'secret') so that no
 * key, token or password can reach the index, even one the content patterns would miss.
 */
const SECRET_NAMES = new Set([
  '.env', '.envrc', '.npmrc', '.pypirc', '.netrc', '_netrc', '.git-credentials', '.htpasswd', '.pgpass', '.dockercfg',
  '.vault-token', 'secrets.yml', 'secrets.yaml', 'secrets.json', 'secrets.toml',
])

/** `.env`: `config.env`, `production.env` are dotenv files too; `.tfstate`: Terraform state holds every secret it created. */
const SECRET_EXTENSIONS = new Set(['.pem', '.key', '.p12', '.pfx', '.p8', '.ppk', '.keystore', '.jks', '.env', '.tfstate'])

/** Name families; anchored on a literal start, so most names fail on their first character. */
const SECRET_NAME_PATTERN = new RegExp(
  '^(?:' +
    [
      // dotenv variants, but not the committed templates (.env.example, .env.local.sample …)
      String.raw`\.env\..+(?<!\.(?:example|sample|template|dist))`,
      String.raw`id_(?:rsa|dsa|ecdsa|ed25519)(?:[._-].*)?`,
      String.raw`(?:credentials|service[-_]account|client[-_]secret)[^/]*\.json`,
    ].join('|') +
    ')$',
)

/** SSH deploy keys by their usual names: deploy_key, github-deploy-key, deploy_key.old, deploykey. */
const DEPLOY_KEY = /(?:^|[._-])deploy[_-]?key(?:$|[._-])/

/** Credential files recognised by their folder as well as their name. */
const SECRET_PATHS = ['.aws/credentials', '.docker/config.json', '.kube/config']

/** `lowerBase` and `lowerExtension` (with its dot, '' for none) are the file's name and extension lowercased. */
export function isSecretFile(path: string, lowerBase: string, lowerExtension: string): boolean {
  if (SECRET_NAMES.has(lowerBase) || SECRET_EXTENSIONS.has(lowerExtension) || SECRET_NAME_PATTERN.test(lowerBase)) return true
  if ((lowerBase.includes('deploy') && DEPLOY_KEY.test(lowerBase)) || lowerBase.endsWith('.tfstate.backup')) return true
  for (const suffix of SECRET_PATHS) {
    if (path.endsWith(suffix) && (path.length === suffix.length || path[path.length - suffix.length - 1] === '/')) return true
  }
  return false
}
