import { syncIndex } from '../../src/core/index/index.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

/** A small realistic Python + TypeScript repository for the search tests. */
export const SEARCH_REPO: Record<string, string> = {
  'app/__init__.py': '',
  'app/auth/__init__.py': '',
  'app/auth/passwords.py': `"""Password hashing with a per-user salt."""
import hashlib
import hmac
import os


def hash_password(password, salt=None):
    """Derive a salted PBKDF2 hash of the password."""
    salt = salt or os.urandom(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, 100_000)
    return salt + digest


def verify_password(password, stored):
    """Compare a password with a stored salted hash in constant time."""
    salt, digest = stored[:16], stored[16:]
    candidate = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, 100_000)
    return hmac.compare_digest(candidate, digest)
`,
  'app/auth/service.py': `from app.auth.passwords import verify_password
from app.storage.users import find_user


class AuthenticationError(Exception):
    """Raised when credentials do not match."""


def authenticate_user(username, password):
    """Look the user up and check the password against the stored hash."""
    user = find_user(username)
    if user is None or not verify_password(password, user.password_hash):
        raise AuthenticationError(username)
    return user


class UserService:
    """Sessions for authenticated users."""

    def __init__(self, sessions):
        self.sessions = sessions

    def login(self, username, password):
        """Authenticate and open a session; returns the session token."""
        user = authenticate_user(username, password)
        token = self.sessions.create(user.id)
        return token

    def logout(self, token):
        """Close the session behind the token."""
        self.sessions.delete(token)
`,
  'app/storage/users.py': `"""User records kept in the database."""
from dataclasses import dataclass


@dataclass
class User:
    id: int
    name: str
    password_hash: bytes


_USERS = {}


def find_user(username):
    """Return the user with this name, or None."""
    return _USERS.get(username)


def save_user(user):
    """Insert or replace a user record."""
    _USERS[user.name] = user
`,
  'app/api/views.py': `from app.auth.service import authenticate_user, AuthenticationError


def login_view(request):
    """HTTP endpoint: checks the posted credentials and answers 401 when they are wrong."""
    try:
        user = authenticate_user(request.form["username"], request.form["password"])
    except AuthenticationError:
        return {"status": 401}
    return {"status": 200, "user": user.name}
`,
  'tests/test_auth.py': `from app.auth.service import authenticate_user, AuthenticationError
import pytest


def test_authenticate_user_rejects_wrong_password(users):
    """A wrong password must raise, never return the user."""
    with pytest.raises(AuthenticationError):
        authenticate_user("alice", "wrong password")


def test_authenticate_user_accepts_right_password(users):
    user = authenticate_user("alice", "right password")
    assert user.name == "alice"
`,
  'legacy/passwords_copy.py': `"""Password hashing with a per-user salt."""
import hashlib
import hmac
import os


def hash_password(password, salt=None):
    """Derive a salted PBKDF2 hash of the password."""
    salt = salt or os.urandom(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, 100_000)
    return salt + digest
`,
  'web/src/session.ts': `export interface Session {
  token: string
  expiresAt: number
}

/** Keeps the current session and renews its token before it expires. */
export class SessionStore {
  private session: Session | null = null

  current(): Session | null {
    return this.session
  }

  async refreshToken(fetcher: (url: string) => Promise<Session>): Promise<Session> {
    const renewed = await fetcher('/api/session/refresh')
    this.session = renewed
    return renewed
  }
}

export function parseSessionCookie(cookie: string): string | null {
  const match = /(?:^|; )session=([^;]+)/.exec(cookie)
  return match ? decodeURIComponent(match[1]) : null
}
`,
  'web/src/api/client.ts': `import { SessionStore } from '../session'

/** Retries a request with exponential backoff when the server answers 429 or 5xx. */
export async function fetchWithRetry(url: string, attempts = 3): Promise<Response> {
  let delay = 250
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(url)
    if (response.status !== 429 && response.status < 500) return response
    if (attempt >= attempts) return response
    await new Promise((resolve) => setTimeout(resolve, delay))
    delay *= 2
  }
}

export class ApiClient {
  constructor(private readonly sessions: SessionStore) {}

  async get(path: string): Promise<unknown> {
    const session = this.sessions.current()
    const response = await fetchWithRetry(path + '?token=' + (session?.token ?? ''))
    return response.json()
  }
}
`,
  'web/src/api/client.test.ts': `import { fetchWithRetry } from './client'

describe('fetchWithRetry', () => {
  it('retries with backoff after a 503', async () => {
    const response = await fetchWithRetry('/flaky', 3)
    expect(response.status).toBe(200)
  })
})
`,
}

/** A repository holding `files`, committed and indexed. */
export async function createIndexedRepo(files: Record<string, string> = SEARCH_REPO): Promise<GitFixture> {
  const repo = createGitRepo({ files })
  await syncIndex(repo.dir, { warn: () => {} })
  return repo
}
