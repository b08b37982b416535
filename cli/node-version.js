// The Node.js telealert needs, checked before anything else loads: plain JavaScript importing
// only a node built-in, so that an older Node reads it and says what to install, instead of failing later
// deep inside vitest or the CLI (`Map.groupBy is not a function` on Node 20).
//
// `node cli/node-version.js` exits 1 with the explanation on stderr when this Node is too old
// (npm runs it before `npm test`, `npm run test:e2e` and `npm start`); `node cli/node-version.js
// v20.11.1` judges that version instead (the tests' way to try an old one). cli/bin.js and the
// vitest configs import `requireNode`.
import { pathToFileURL } from 'node:url';

/** The oldest Node.js telealert runs on: vitest 5 needs 22.12, the code Map.groupBy (22). */
export const MINIMUM_NODE = { major: 22, minor: 12 };
/** What Lambda runs (`nodejs24.x`) and `.nvmrc` names. */
export const RECOMMENDED_NODE_MAJOR = 24;

/**
 * Why `version` (`v20.11.1` or `20.11.1`) is too old for telealert, with how to get a newer
 * one; `undefined` when it will do.
 *
 * @param {string} version
 * @returns {string | undefined}
 */
export function nodeVersionProblem(version) {
  const match = /^v?(\d+)\.(\d+)/.exec(version.trim());
  const major = Number(match?.[1] ?? 0);
  const minor = Number(match?.[2] ?? 0);
  if (major > MINIMUM_NODE.major || (major === MINIMUM_NODE.major && minor >= MINIMUM_NODE.minor)) {
    return undefined;
  }
  const shown = version.startsWith('v') ? version : `v${version}`;
  return [
    `telealert needs Node.js ${MINIMUM_NODE.major}.${MINIMUM_NODE.minor} or newer (${RECOMMENDED_NODE_MAJOR} recommended, as on Lambda nodejs${RECOMMENDED_NODE_MAJOR}.x); this is Node.js ${shown}.`,
    `Install Node.js ${RECOMMENDED_NODE_MAJOR} with nvm: nvm install ${RECOMMENDED_NODE_MAJOR} && nvm use ${RECOMMENDED_NODE_MAJOR} (the repository's .nvmrc names it),`,
    `or from https://nodejs.org, or with npm alone: npm install --prefix ~/.node${RECOMMENDED_NODE_MAJOR} node@${RECOMMENDED_NODE_MAJOR}`,
    `and put ~/.node${RECOMMENDED_NODE_MAJOR}/node_modules/.bin first on your PATH. Then run npm ci again.`,
  ].join('\n');
}

/**
 * Exits the process with status 1 and the explanation on stderr when `version` (by default the
 * running Node's) is too old.
 *
 * @param {string} [version]
 */
export function requireNode(version = process.version) {
  const problem = nodeVersionProblem(version);
  if (problem === undefined) return;
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  requireNode(process.argv[2]);
}
