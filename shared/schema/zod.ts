import { en } from 'zod/locales';
import { config } from 'zod/mini';

/*
 * The one way this project imports zod: `import * as z from '<relative>/schema/zod'`.
 *
 * zod/mini is zod 4's functional form: a bundle keeps only the functions its schemas call (about
 * a third of classic zod in each Lambda) and a schema is cheaper to build. Unlike classic zod it
 * loads no locale, so without English configured here every issue would read "Invalid input";
 * the rules file's and the timelines' messages rely on it. Re-exported with `export *` rather
 * than as mini's `z` object, which a bundler would have to keep whole.
 */
config(en());

export * from 'zod/mini';
