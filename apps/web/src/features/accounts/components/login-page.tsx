export function LoginPage() {
  return (
    <section className="page">
      <h1>Login</h1>
      <p>Signing in will be available here.</p>
    </section>
  );
}
