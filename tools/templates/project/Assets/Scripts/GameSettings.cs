using UnityEngine;

/// Tuning values shared by the player and the enemies.
[CreateAssetMenu(menuName = "Game/Settings")]
public class GameSettings : ScriptableObject
{
    public float gravity = -9.81f;
    public int startingLives = 3;
}
