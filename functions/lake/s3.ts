import { HeadObjectCommand, NotFound, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { envNames, localMode } from '../shared/config';

/**
 * The lake bucket's client: the function's own role on AWS; locally the embedded S3 emulator
 * (AWS_ENDPOINT_URL_S3, path-style), which does not take the SDK's default checksums.
 */
const localEndpoint = localMode() ? process.env[envNames.lakeS3Endpoint] : undefined;

export const lakeS3 = new S3Client({
  ...(localEndpoint ? { endpoint: localEndpoint } : {}),
  forcePathStyle: localMode(),
  requestChecksumCalculation: 'WHEN_REQUIRED',
});

export async function putLakeObject(bucket: string, key: string, body: Buffer): Promise<void> {
  await lakeS3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
}

export async function lakeObjectExists(bucket: string, key: string): Promise<boolean> {
  try {
    await lakeS3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return true;
  } catch (error) {
    if (error instanceof NotFound || (error as { name?: string }).name === 'NotFound') return false;
    throw error;
  }
}
