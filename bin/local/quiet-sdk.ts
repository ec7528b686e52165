import { setToolEnvironment } from '../environment';
// Imported first: the functions run on Node.js 24 in Lambda, so the AWS SDK's notice about a
// development machine's Node 20 is noise. Must run before any SDK module loads.
setToolEnvironment({ AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' }, false);
