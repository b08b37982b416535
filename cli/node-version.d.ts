// Types of node-version.js, which stays plain JavaScript so that an old Node can read it.
export declare const MINIMUM_NODE: { readonly major: number; readonly minor: number };
export declare const RECOMMENDED_NODE_MAJOR: number;
export declare function nodeVersionProblem(version: string): string | undefined;
export declare function requireNode(version?: string): void;
