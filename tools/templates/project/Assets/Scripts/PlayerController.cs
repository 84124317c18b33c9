using UnityEngine;

/// Moves the player with the arrow keys and jumps with space.
public class PlayerController : MonoBehaviour
{
    public float speed = 5f;
    public float jumpHeight = 1.5f;

    private Rigidbody body;

    void Awake()
    {
        body = GetComponent<Rigidbody>();
    }

    void Update()
    {
        var input = new Vector3(Input.GetAxis("Horizontal"), 0f, Input.GetAxis("Vertical"));
        transform.Translate(input * speed * Time.deltaTime);
        if (Input.GetButtonDown("Jump"))
        {
            body.AddForce(Vector3.up * Mathf.Sqrt(2f * jumpHeight * 9.81f), ForceMode.VelocityChange);
        }
    }
}
