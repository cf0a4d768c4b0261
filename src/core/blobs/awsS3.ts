/**
 * Entry of dist/aws-s3.js: the AWS SDK's S3 client in a file of its own, which the
 * product bundles require only when an S3 store is opened (esbuild.js, `awsSdkApart`).
 * Source code imports `@aws-sdk/client-s3` as usual; only the bundles are split.
 */
export * from '@aws-sdk/client-s3';
