export function ReleasePage() {
  return (
    <section className="page">
      <h1>Release</h1>
      <p>Releasing products and viewing orders will be available here.</p>
    </section>
  );
}
