/** The AWS SDK in a bundle of its own, required only when an S3 store is opened (esbuild.js, `awsSdkApart`). */
export * from '@aws-sdk/client-s3';
