import fs from 'node:fs';
import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import type { S3Settings } from '../config.ts';
import { assertDriverKey, type StorageDriver } from './storage.driver.ts';

/**
 * The S3-compatible driver (decision 022): object bytes, image variants and the parts of
 * resumable uploads in one bucket under one prefix, so every instance of the shop sees
 * the same objects. Works with AWS S3, R2, MinIO, Ceph and other S3-protocol stores.
 */
export const S3_MIN_PART_SIZE = 5 * 1024 * 1024;

function isMissing(error: unknown): boolean {
  if (error instanceof S3ServiceException) {
    return error.name === 'NoSuchKey' || error.name === 'NotFound' || error.name === 'NoSuchUpload' || error.$metadata.httpStatusCode === 404;
  }
  return false;
}

export function createS3Client(settings: S3Settings): S3Client {
  return new S3Client({
    region: settings.region,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    ...(settings.credentials ? { credentials: settings.credentials } : {}),
    forcePathStyle: settings.forcePathStyle,
    // Checksums only where S3 requires them: many S3-compatible stores do not know the
    // newer default (CRC trailers).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
  });
}

export function createS3Driver(settings: S3Settings, client: S3Client = createS3Client(settings)): StorageDriver {
  const Bucket = settings.bucket;
  const Key = (key: string) => {
    assertDriverKey(key);
    return settings.prefix ? `${settings.prefix}/${key}` : key;
  };
  return {
    kind: 's3',
    async put(key, data) {
      await client.send(new PutObjectCommand({ Bucket, Key: Key(key), Body: data, ContentLength: data.length }));
    },
    async putFile(key, file) {
      // One PUT (up to 5 GB, more than MASTER_UPLOAD_MAX_BYTES allows) streamed from the file.
      const { size } = await fs.promises.stat(file);
      await client.send(new PutObjectCommand({ Bucket, Key: Key(key), Body: fs.createReadStream(file), ContentLength: size }));
    },
    async get(key, range) {
      try {
        const answer = await client.send(new GetObjectCommand({ Bucket, Key: Key(key), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }));
        return { stream: answer.Body as Readable, size: answer.ContentLength ?? 0 };
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },
    async stat(key) {
      try {
        const answer = await client.send(new HeadObjectCommand({ Bucket, Key: Key(key) }));
        return { size: answer.ContentLength ?? 0 };
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },
    async delete(key) {
      try {
        await client.send(new DeleteObjectCommand({ Bucket, Key: Key(key) }));
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    },
    multipart: {
      minPartSize: S3_MIN_PART_SIZE,
      async create(key) {
        const answer = await client.send(new CreateMultipartUploadCommand({ Bucket, Key: Key(key) }));
        if (!answer.UploadId) throw new Error('The object store did not start a multipart upload.');
        return answer.UploadId;
      },
      async uploadPart(key, uploadId, partNumber, data) {
        const answer = await client.send(new UploadPartCommand({ Bucket, Key: Key(key), UploadId: uploadId, PartNumber: partNumber, Body: data, ContentLength: data.length }));
        if (!answer.ETag) throw new Error('The object store did not acknowledge an upload part.');
        return { partNumber, etag: answer.ETag, size: data.length };
      },
      async complete(key, uploadId, parts) {
        await client.send(
          new CompleteMultipartUploadCommand({
            Bucket,
            Key: Key(key),
            UploadId: uploadId,
            MultipartUpload: { Parts: parts.map((part) => ({ PartNumber: part.partNumber, ETag: part.etag })) },
          }),
        );
      },
      async abort(key, uploadId) {
        try {
          await client.send(new AbortMultipartUploadCommand({ Bucket, Key: Key(key), UploadId: uploadId }));
        } catch (error) {
          if (!isMissing(error)) throw error;
        }
      },
    },
  };
}
