/**
 * The suite's moto: the rehearsal's launcher (`cli/deploy-local/moto_server.py`: moto 5.2.1 on
 * one thread, with the CloudFormation models the stack needs), so what the tests deploy is what
 * `npm run deploy:local` deploys. A missing moto fails the suite with the install line: it is
 * never skipped.
 */
export { type MotoServer as Moto, startMoto } from '../../cli/deploy-local/moto';
