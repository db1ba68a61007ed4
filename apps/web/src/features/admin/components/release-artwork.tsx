import { useId, useState } from 'react';
import { UPLOAD_MESSAGES } from '@storefront/domain/storage.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { toast } from '../../../lib/toast.ts';
import { isImageFile, uploadErrorMessage, uploadReleaseArtwork } from '../../../lib/uploads.ts';
import { ProgressBar } from '../../../ui/progress-bar.tsx';
import { useSaveRelease, type ConsoleRelease } from '../api/music.ts';
import { releaseInput } from './release-edit-form.tsx';

/**
 * A release's artwork (issue 28, decision 064): an image through the shop's resumable upload
 * (checked by content on the server, like product images), with progress; once stored it
 * replaces the release's artwork at once, and the release's products take it too.
 */
export function ReleaseArtwork({ release }: { release: ConsoleRelease }) {
  const inputId = useId();
  const save = useSaveRelease();
  const [percent, setPercent] = useState<number | null>(null);
  const start = async (file: File) => {
    if (!isImageFile(file)) {
      toast.error(UPLOAD_MESSAGES.notAnImage);
      return;
    }
    setPercent(0);
    try {
      const url = await uploadReleaseArtwork(file, setPercent).url;
      await save.mutateAsync(releaseInput(release, { artwork: url }));
      toast.success(`The artwork of ${release.title} is replaced.`);
    } catch (error) {
      toast.error(uploadErrorMessage(error, errorSentence(error, 'The artwork could not be uploaded.')));
    } finally {
      setPercent(null);
    }
  };
  return (
    <div className="music-release__artwork">
      {release.artwork ? <img src={release.artwork} alt={`Artwork of ${release.title}`} width={96} height={96} /> : <p>No artwork yet.</p>}
      {percent !== null ? (
        <ProgressBar value={percent} label={`Uploading the artwork of ${release.title}`} />
      ) : (
        <p>
          <label htmlFor={inputId}>{release.artwork ? 'Replace artwork' : 'Upload artwork'} (an image)</label>{' '}
          <input
            id={inputId}
            type="file"
            accept="image/*"
            disabled={save.isPending}
            onChange={(event) => {
              const file = event.currentTarget.files?.[0];
              event.currentTarget.value = '';
              if (file) void start(file);
            }}
          />
        </p>
      )}
    </div>
  );
}
